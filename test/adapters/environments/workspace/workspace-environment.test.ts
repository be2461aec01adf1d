import { afterEach, describe, expect, it } from 'vitest';
import {
  createWorkspaceEnvironment,
  DEFAULT_SLOW_TOOL_MS,
  type WorkspaceState,
  workspaceEnvironment,
} from '../../../../adapters/environments/workspace/workspace-environment.js';
import { generateWorkspaceFiles } from '../../../../adapters/environments/workspace/workspace-files.js';
import { type WorkspaceTask, workspaceTasks } from '../../../../adapters/environments/workspace/workspace-tasks.js';
import { type EnvironmentDefinition, ToolFailure, type ToolResult } from '../../../../src/ors/environment.js';
import { watchTimers } from '../../../support/watch-timers.js';

const fast = createWorkspaceEnvironment({ slowToolMs: 0 });
const firstTask = (predicate: (task: WorkspaceTask) => boolean): WorkspaceTask => {
  for (let index = 0; index < workspaceTasks.count('train'); index++) {
    const task = workspaceTasks.get('train', index);
    if (predicate(task)) return task;
  }
  throw new Error('no such task in the train split');
};

async function session(
  task: WorkspaceTask,
  environment: EnvironmentDefinition<WorkspaceTask, WorkspaceState> = fast,
): Promise<WorkspaceState> {
  return environment.setup({ task, secrets: {}, sessionId: 's1' });
}

async function call(
  state: WorkspaceState,
  name: string,
  input: unknown,
  options: { signal?: AbortSignal; environment?: EnvironmentDefinition<WorkspaceTask, WorkspaceState> } = {},
): Promise<ToolResult> {
  const environment = options.environment ?? fast;
  const tools = [...environment.tools, ...(environment.taskTools?.(state) ?? [])];
  const tool = tools.find((candidate) => candidate.name === name);
  if (!tool) throw new Error(`no tool ${name}`);
  const parsed = tool.input ? tool.input.parse(input) : input;
  return tool.run(parsed, { state, sessionId: 's1', signal: options.signal ?? new AbortController().signal });
}

const textOf = (result: ToolResult) => result.blocks.map((block) => (block.type === 'text' ? block.text : '')).join('');

describe('the workspace environment', () => {
  const controllers: AbortController[] = [];
  afterEach(() => {
    for (const controller of controllers.splice(0)) controller.abort();
  });

  it('prompts with the key to find and how to answer', async () => {
    const task = workspaceTasks.get('train', 0);
    const state = await session(task);
    const [block] = await fast.prompt(state);
    expect(block).toMatchObject({ type: 'text' });
    expect(block?.type === 'text' && block.text).toContain(`Find the value recorded for \`${task.key}\``);
    expect(block?.type === 'text' && block.text).toContain(`holds ${state.files.size} files`);
  });

  it('lists every file with its size, and takes no input', async () => {
    const state = await session(workspaceTasks.get('train', 0));
    expect(fast.tools.find((tool) => tool.name === 'list_files')?.input).toBeNull();
    const listing = textOf(await call(state, 'list_files', {}));
    expect(listing.split('\n')[0]).toBe(`${state.files.size} files:`);
    for (const [path, content] of state.files)
      expect(listing).toContain(`${path} (${Buffer.byteLength(content)} bytes)`);
  });

  it('returns a big file whole from read_file, more than one 4096-character ORS chunk', async () => {
    const state = await session(workspaceTasks.get('train', 0));
    const [path, content] = [...state.files].sort((a, b) => b[1].length - a[1].length)[0]!;
    expect(content.length).toBeGreaterThan(4096);
    const result = await call(state, 'read_file', { path: `./${path}` });
    expect(textOf(result)).toBe(content);
  });

  it('answers a missing file or a path escaping the workspace with a ToolFailure', async () => {
    const state = await session(workspaceTasks.get('train', 0));
    await expect(call(state, 'read_file', { path: 'nope.txt' })).rejects.toThrow(
      /There is no file "nope.txt". Call list_files/,
    );
    await expect(call(state, 'read_file', { path: '../etc/passwd' })).rejects.toThrow(ToolFailure);
    await expect(call(state, 'write_file', { path: 'a//b', content: '' })).rejects.toThrow(/not a valid path/);
  });

  it('writes files into the session only, where list_files, read_file and search see them', async () => {
    const task = workspaceTasks.get('train', 0);
    const state = await session(task);
    expect(
      textOf(await call(state, 'write_file', { path: 'notes/findings.md', content: 'needle in a haystack\n' })),
    ).toBe('Created notes/findings.md (21 characters).');
    expect(textOf(await call(state, 'read_file', { path: 'notes/findings.md' }))).toBe('needle in a haystack\n');
    expect(textOf(await call(state, 'list_files', {}))).toContain('notes/findings.md (21 bytes)');
    expect(textOf(await call(state, 'search', { pattern: 'NEEDLE' }))).toContain(
      'notes/findings.md:1: needle in a haystack',
    );
    expect(textOf(await call(state, 'write_file', { path: 'notes/findings.md', content: 'x' }))).toMatch(/^Replaced/);
    expect((await session(task)).files.has('notes/findings.md')).toBe(false);
  });

  it('skips archive/ in a plain search and says how to include it', async () => {
    const task = firstTask((candidate) => candidate.location === 'archive');
    const state = await session(task);
    const plain = textOf(await call(state, 'search', { pattern: `${task.key}=` }));
    expect(plain).toBe(
      `No lines contain "${task.key}=" outside archive/. Files under archive/ are searched only with deep: true (slow).`,
    );
    const deep = textOf(await call(state, 'search', { pattern: `${task.key}=`, deep: true }));
    expect(deep).toMatch(
      new RegExp(
        `^1 line contains "${task.key}=" in all files, archive/ included:\\narchive/app-[\\d-]+\\.log:\\d+: .*${task.key}=${task.answer}`,
      ),
    );
  });

  it('lists at most 50 matching lines and counts the rest', async () => {
    const state = await session(workspaceTasks.get('train', 0));
    const result = textOf(await call(state, 'search', { pattern: 'Z ' }));
    const lines = result.split('\n');
    expect(lines).toHaveLength(52);
    expect(lines[51]).toMatch(/^… and \d+ more; use a more specific pattern\.$/);
  });

  it('defaults the deep search to a few seconds', () => {
    expect(DEFAULT_SLOW_TOOL_MS).toBeGreaterThanOrEqual(2000);
    expect(DEFAULT_SLOW_TOOL_MS).toBeLessThanOrEqual(10_000);
    expect(workspaceEnvironment.tools.map((tool) => tool.name)).toEqual([
      'list_files',
      'read_file',
      'write_file',
      'search',
      'submit',
    ]);
    expect(() => createWorkspaceEnvironment({ slowToolMs: -1 })).toThrow(RangeError);
  });

  it("stops a deep search as soon as the session's signal aborts, rejecting with its reason and leaving no timer", async () => {
    const slow = createWorkspaceEnvironment({ slowToolMs: 600_000 });
    const state = await session(workspaceTasks.get('train', 0), slow);
    // The search spreads its 600 s evenly over the files: a delay of exactly this many milliseconds is
    // the search's and no other timer's (a worker that keeps modules between files also keeps the
    // timers of the files before, and any of them may be armed again while this test runs).
    const perFile = 600_000 / state.files.size;
    const timers = watchTimers((ms) => ms === perFile);
    const controller = new AbortController();
    controllers.push(controller);
    let settled = false;
    const search = call(
      state,
      'search',
      { pattern: 'cache', deep: true },
      { signal: controller.signal, environment: slow },
    );
    void search.then(
      () => (settled = true),
      () => (settled = true),
    );
    // It reaches its first file's wait (how many turns of the event loop that takes depends on the
    // machine's load: turns, not time, so no timer of the test's own is counted) and is still working
    // there: it is slow, not finished.
    for (let turns = 0; turns < 10_000 && (await timers.pending()) === 0; turns++);
    expect(await timers.pending()).toBe(1);
    expect(settled).toBe(false);
    const reason = new Error('session deleted');
    controller.abort(reason);
    await expect(search).rejects.toBe(reason);
    expect(await timers.pending()).toBe(0);
  });

  it('rewards the recorded value with 1 (case and spaces aside) and anything else with 0, without revealing it', async () => {
    const task = workspaceTasks.get('train', 3);
    const right = await call(await session(task), 'submit', { answer: ` ${task.answer.toUpperCase()} ` });
    expect(right).toMatchObject({ reward: 1, finished: true });
    expect(textOf(right)).toMatch(/^Correct: .* The episode is finished\.$/);
    const state = await session(task);
    const wrong = await call(state, 'submit', { answer: 'wrong-1' });
    expect(wrong).toMatchObject({ reward: 0, finished: true });
    expect(JSON.stringify(wrong)).not.toContain(task.answer);
    await expect(call(state, 'submit', { answer: task.answer })).rejects.toThrow(/already finished/);
    await expect(call(await session(task), 'submit', { answer: '  ' })).rejects.toThrow(/empty/);
  });

  it('offers get_hint only to tasks with a hint, and the hint names the right place', async () => {
    const hinted = firstTask((task) => task.hint && task.location === 'archive');
    const state = await session(hinted);
    expect(fast.taskTools?.(state).map((tool) => tool.name)).toEqual(['get_hint']);
    expect(textOf(await call(state, 'get_hint', {}))).toBe(
      `The value for ${hinted.key} is recorded in an archived log under archive/, which a plain search skips: search with deep: true.`,
    );
    expect(fast.taskTools?.(await session(firstTask((task) => !task.hint)))).toEqual([]);
  });

  it('generates the session files from the task alone', async () => {
    const task = workspaceTasks.get('test', 7);
    expect((await session(task)).files).toEqual(generateWorkspaceFiles(task));
  });

  it('lets the event loop run while a search scans a large workspace, and stops when the session ends', async () => {
    const state = await session(workspaceTasks.get('train', 0));
    const line = `${'filler text '.repeat(8)}\n`;
    for (let index = 0; index < 40; index++) state.files.set(`big/${index}.txt`, line.repeat(10_000));
    // Counts turns of the event loop while the search runs; a search that never yields gets none.
    let turns = 0;
    let ticking = true;
    const tick = () => {
      turns++;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    const result = await call(state, 'search', { pattern: 'not in any file' });
    ticking = false;
    expect(textOf(result)).toContain('No lines contain');
    expect(turns).toBeGreaterThan(100);

    const stop = new AbortController();
    controllers.push(stop);
    const searching = call(state, 'search', { pattern: 'filler' }, { signal: stop.signal });
    stop.abort(new Error('session deleted'));
    await expect(searching).rejects.toThrow('session deleted');
  });
});
