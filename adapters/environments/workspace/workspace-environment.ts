import { z } from 'zod';
import {
  defineEnvironment,
  defineTool,
  type EnvironmentDefinition,
  type ToolDefinition,
  ToolFailure,
} from '../../../src/ors/environment.js';
import type { TextBlock } from '../../../src/ors/ors-schemas.js';
import { generateWorkspaceFiles } from './workspace-files.js';
import { ARCHIVE_PREFIX, deepSearchFiles, formatSearchResult, searchFiles } from './workspace-search.js';
import { WORKSPACE_SPLITS, type WorkspaceTask, WorkspaceTaskSchema, workspaceTasks } from './workspace-tasks.js';

/**
 * `workspace`: an in-memory file tree per session with one fact hidden in it; the model finds the
 * value recorded for a key and submits it (reward 1 if it matches, 0 if not). Like `arith`, a wrong
 * submission is not told the right value.
 *
 * It exercises the parts of ORS a toy environment would not: `read_file` returns big files whole
 * (results over 4096 characters are chunked), `search` with `deep: true` takes seconds (keep-alives,
 * abort on session deletion), and some tasks add the task-specific `get_hint` tool (`/task_tools`).
 */

/** One episode's state. `files` is private to the session; `write_file` changes only this copy. */
export interface WorkspaceState {
  task: WorkspaceTask;
  files: Map<string, string>;
  /** Set by the first valid `submit`; later submissions are refused. */
  finished: boolean;
}

/** Knobs of {@link createWorkspaceEnvironment}. */
export interface WorkspaceEnvironmentOptions {
  /** How long a `search` with `deep: true` takes, in ms; default {@link DEFAULT_SLOW_TOOL_MS}. */
  slowToolMs?: number;
}

/** Long enough that a client sees the tool is busy, short enough for a demo. */
export const DEFAULT_SLOW_TOOL_MS = 3000;
/** Limits on what `write_file` accepts, so a runaway model cannot exhaust the server's memory. */
const MAX_WRITE_CHARS = 1_000_000;
const MAX_FILES = 200;

const text = (value: string): TextBlock => ({ type: 'text', text: value, detail: null });

/** Accepts `a/b.txt` (optionally written `./a/b.txt` or `/a/b.txt`); refuses `..`, empty segments and odd characters. */
function normalisePath(path: string): string {
  const trimmed = path.trim().replace(/^\.?\//, '');
  const segments = trimmed.split('/');
  const valid =
    trimmed.length > 0 &&
    trimmed.length <= 200 &&
    segments.every((segment) => /^[A-Za-z0-9_.-]+$/.test(segment) && segment !== '.' && segment !== '..');
  if (!valid) {
    throw new ToolFailure(
      `"${path.slice(0, 200)}" is not a valid path. Use a relative path such as "notes/todo.md" made of letters, digits, "_", "." and "-".`,
    );
  }
  return trimmed;
}

const listFiles = defineTool<WorkspaceState, unknown>({
  name: 'list_files',
  description: 'Lists every file of the workspace with its size.',
  input: null,
  run(_input, { state }) {
    const lines = [...state.files].map(([path, content]) => `${path} (${Buffer.byteLength(content)} bytes)`);
    return { blocks: [text(`${lines.length} files:\n${lines.join('\n')}`)] };
  },
});

const readFile = defineTool<WorkspaceState, { path: string }>({
  name: 'read_file',
  description: 'Returns the whole content of one file, however long.',
  input: z.object({
    path: z.string().max(1000).describe('The file path as list_files shows it, e.g. "config/app.ini".'),
  }),
  run({ path }, { state }) {
    const normalised = normalisePath(path);
    const content = state.files.get(normalised);
    if (content === undefined)
      throw new ToolFailure(`There is no file "${normalised}". Call list_files to see the paths.`);
    return { blocks: [text(content)] };
  },
});

const writeFile = defineTool<WorkspaceState, { path: string; content: string }>({
  name: 'write_file',
  description: 'Creates or replaces a file with the given content.',
  input: z.object({
    path: z.string().max(1000).describe('A relative path, e.g. "notes/findings.md".'),
    content: z.string().describe(`The full new content, at most ${MAX_WRITE_CHARS} characters.`),
  }),
  run({ path, content }, { state }) {
    const normalised = normalisePath(path);
    if (content.length > MAX_WRITE_CHARS) {
      throw new ToolFailure(
        `The content has ${content.length} characters; the limit is ${MAX_WRITE_CHARS}. Write a shorter file.`,
      );
    }
    const existed = state.files.has(normalised);
    if (!existed && state.files.size >= MAX_FILES) {
      throw new ToolFailure(
        `The workspace already holds ${MAX_FILES} files, the limit. Overwrite an existing file instead.`,
      );
    }
    state.files.set(normalised, content);
    // Keep list_files and search in path order, as they were before the write.
    state.files = new Map([...state.files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    return { blocks: [text(`${existed ? 'Replaced' : 'Created'} ${normalised} (${content.length} characters).`)] };
  },
});

function searchTool(
  slowToolMs: number,
): ToolDefinition<WorkspaceState, { pattern: string; deep?: boolean | undefined }> {
  return defineTool({
    name: 'search',
    description:
      'Finds lines containing a text (case-insensitive) and lists them as "path:line: text". ' +
      `Skips ${ARCHIVE_PREFIX} unless deep is true; a deep search also reads the archives and takes several seconds.`,
    input: z.object({
      pattern: z.string().min(1).max(200).describe('The text to look for, e.g. a setting name.'),
      deep: z.boolean().optional().describe(`Also search ${ARCHIVE_PREFIX} (slow). Default false.`),
    }),
    async run({ pattern, deep }, { state, signal }) {
      const matches = deep
        ? await deepSearchFiles(state.files, pattern, { durationMs: slowToolMs, signal })
        : await searchFiles(state.files, pattern, signal);
      return {
        blocks: [text(formatSearchResult(pattern, matches, deep === true))],
        metadata: { matches: matches.length },
      };
    },
  });
}

const submit = defineTool<WorkspaceState, { answer: string | number }>({
  name: 'submit',
  description:
    'Submits the value you found, exactly as written in the file. Ends the episode: reward 1 if it is right, 0 if not.',
  input: z.object({
    answer: z.union([z.string().max(200), z.number()]).describe('The recorded value, e.g. "cobalt-4821".'),
  }),
  run({ answer }, { state }) {
    if (state.finished) throw new ToolFailure('The episode is already finished; open a new session for another task.');
    const submitted = String(answer).trim();
    if (submitted === '')
      throw new ToolFailure('The answer is empty. Submit the value exactly as it is written in the file.');
    state.finished = true;
    const correct = submitted.toLowerCase() === state.task.answer.toLowerCase();
    return {
      blocks: [
        text(
          correct
            ? `Correct: "${submitted}" is the value recorded for ${state.task.key}. The episode is finished.`
            : `Incorrect: "${submitted}" is not the value recorded for ${state.task.key}. The episode is finished.`,
        ),
      ],
      reward: correct ? 1 : 0,
      finished: true,
      metadata: { submitted, correct },
    };
  },
});

const HINTS: Record<WorkspaceTask['location'], string> = {
  logs: 'in an application log under logs/',
  config: 'in an INI file under config/',
  notes: 'in a notes file under notes/',
  data: 'in a CSV export under data/',
  archive: `in an archived log under ${ARCHIVE_PREFIX}, which a plain search skips: search with deep: true`,
};

const getHint = defineTool<WorkspaceState, unknown>({
  name: 'get_hint',
  description: 'Says which kind of file holds the value this task asks for.',
  input: null,
  run(_input, { state }) {
    return { blocks: [text(`The value for ${state.task.key} is recorded ${HINTS[state.task.location]}.`)] };
  },
});

/** A workspace environment; tests pass a short `slowToolMs` so deep searches finish quickly. */
export function createWorkspaceEnvironment(
  options: WorkspaceEnvironmentOptions = {},
): EnvironmentDefinition<WorkspaceTask, WorkspaceState> {
  const slowToolMs = options.slowToolMs ?? DEFAULT_SLOW_TOOL_MS;
  if (!Number.isFinite(slowToolMs) || slowToolMs < 0)
    throw new RangeError(`slowToolMs must be a number of milliseconds ≥ 0, got ${slowToolMs}`);
  return defineEnvironment<WorkspaceTask, WorkspaceState>({
    name: 'workspace',
    description:
      'Find the value recorded for a key in a generated tree of logs, configs, notes and CSVs, and submit it.',
    splits: WORKSPACE_SPLITS,
    tasks: workspaceTasks,
    taskSchema: WorkspaceTaskSchema,
    tools: [listFiles, readFile, writeFile, searchTool(slowToolMs), submit],
    taskTools: (state) => (state.task.hint ? [getHint] : []),
    setup: ({ task }) => ({ task, files: generateWorkspaceFiles(task), finished: false }),
    prompt: (state) => [
      text(
        `This workspace holds ${state.files.size} files: configuration, logs, notes, data exports and archived logs. ` +
          `Find the value recorded for \`${state.task.key}\` in these files and submit it exactly as written, using the submit tool.`,
      ),
    ],
  });
}

/** The `workspace` environment with the default slow-tool duration, as the built-in ORS server serves it. */
export const workspaceEnvironment = createWorkspaceEnvironment();
