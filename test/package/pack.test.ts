import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBridge, type TestBridge } from '../support/start-test-bridge.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);

/** The version of a package installed in the repository, so the consumer installs the same one from the npm cache. */
async function installedVersion(name: string): Promise<string> {
  return JSON.parse(await readFile(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')).version;
}

/** What each entry point exports: the public API, on purpose; a change here is a change of the package's surface. */
const PUBLIC_API = {
  runbridge: [
    'ConfigError',
    'ModelRegistry',
    'RunCreatedSchema',
    'RunEventSchema',
    'RunRequestSchema',
    'RunSnapshotSchema',
    'RunbridgeError',
    'TaskRefSchema',
    'TrajectoryRecordSchema',
    'UsageSchema',
    'configuredProviders',
    'connectOrs',
    'generateRollouts',
    'isTerminalEvent',
    'loadConfig',
    'startRunbridge',
  ],
  'runbridge/client': [
    'ApiError',
    'AuthenticationError',
    'ConflictError',
    'ConnectionError',
    'InvalidRequestError',
    'NotFoundError',
    'PermissionDeniedError',
    'RateLimitError',
    'RunbridgeClientError',
    'ServerError',
    'StreamInterruptedError',
    'UnavailableError',
    'UnexpectedResponseError',
    'createClient',
    'isKnownRunEvent',
    'isTerminalRunEvent',
  ],
  'runbridge/ors': [
    'OrsClient',
    'OrsError',
    'RunbridgeError',
    'ToolFailure',
    'createOrsServer',
    'defineEnvironment',
    'defineTool',
    'taskList',
  ],
};

/** A consumer in plain ESM: the export lists, then a whole run on a bridge started from the package, followed with its client. */
const CONSUMER_MJS = `
import * as main from 'runbridge';
import * as client from 'runbridge/client';
import * as ors from 'runbridge/ors';

const exported = Object.fromEntries(
  [['runbridge', main], ['runbridge/client', client], ['runbridge/ors', ors]].map(([name, module]) => [name, Object.keys(module).sort()]),
);
const bridge = await main.startRunbridge({ config: main.loadConfig({ PORT: '0', HOST: '127.0.0.1', RUNBRIDGE_LOG_LEVEL: 'error' }) });
try {
  const api = client.createClient({ baseUrl: bridge.url });
  const { run_id } = await api.runs.create({ env: 'arith' });
  const events = [];
  for await (const event of api.runs.events(run_id)) events.push(event.event);
  const page = await fetch(bridge.url + '/');
  const script = await fetch(bridge.url + '/ui/app.js');
  console.log(JSON.stringify({
    exported,
    first: events[0],
    last: events.at(-1),
    page: [page.status, (await page.text()).includes('/ui/app.js')],
    script: [script.status, script.headers.get('content-type')],
  }));
} finally {
  await bridge.shutdown();
}
`;

/** A TypeScript consumer of the three entry points, type-checked against the shipped declarations. */
const CONSUMER_TS = `
import { type RunEvent, RunEventSchema, startRunbridge, loadConfig, type ModelProvider } from 'runbridge';
import { createClient, isKnownRunEvent, NotFoundError, type AnyRunEvent } from 'runbridge/client';
import { createOrsServer, defineEnvironment, defineTool, taskList } from 'runbridge/ors';
import { z } from 'zod';

export function describeEvent(event: AnyRunEvent): string {
  if (!isKnownRunEvent(event)) return event.event;
  switch (event.event) {
    case 'message.delta':
      return event.delta;
    case 'tool.completed':
      return \`\${event.tool} \${event.reward ?? 'no reward'}\`;
    default:
      return event.event;
  }
}

export const parsed: RunEvent = RunEventSchema.parse({});
export const provider: ModelProvider | undefined = undefined;

const echo = defineTool<{ said: string[] }, { text: string }>({
  name: 'echo',
  description: 'Says it back.',
  input: z.object({ text: z.string() }),
  run: ({ text }, { state }) => {
    state.said.push(text);
    return { blocks: [{ type: 'text', text, detail: null }], reward: 1, finished: true };
  },
});

export const environment = defineEnvironment({
  name: 'echo',
  splits: [{ name: 'train', type: 'train' }],
  tasks: taskList({ train: [{ words: 1 }] }),
  taskSchema: z.object({ words: z.number() }),
  tools: [echo],
  setup: () => ({ said: [] as string[] }),
  prompt: () => [{ type: 'text', text: 'Say something.', detail: null }],
});

export async function main(): Promise<void> {
  const server = createOrsServer({ environments: [environment] });
  const orsUrl = await server.listen();
  const bridge = await startRunbridge({ config: loadConfig({ PORT: '0', ORS_URL: orsUrl }) });
  const api = createClient({ baseUrl: bridge.url, apiKey: 'key' });
  try {
    for await (const event of api.runs.events('run_x', { after: 3 })) console.log(describeEvent(event));
  } catch (error) {
    if (error instanceof NotFoundError) console.log(error.status, error.code, error.details);
  }
  await bridge.shutdown();
  await server.close();
}
`;

/** A browser consumer: runbridge/client with the DOM library and no Node types at all. */
const BROWSER_TS = `
import { createClient, isTerminalRunEvent } from 'runbridge/client';

export async function follow(runId: string, into: HTMLElement): Promise<void> {
  const client = createClient({ baseUrl: location.origin });
  for await (const event of client.runs.events(runId, { signal: AbortSignal.timeout(60_000) })) {
    into.textContent = \`\${event.seq} \${event.event}\`;
    if (isTerminalRunEvent(event)) into.dataset.done = event.event;
  }
}
`;

/**
 * The package as users get it: `npm pack` (which builds dist/ through `prepack`), the tarball
 * installed into an empty project from the npm cache (`--offline`; metadata from the registry only when
 * the cache has none), then the command, each
 * entry point from plain ESM, and TypeScript consumers against the shipped declarations.
 */
describe('the packed package', () => {
  let work: string;
  let consumer: string;
  let packedFiles: string[];
  let installOutput: string;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'runbridge-pack-'));
    const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', work], {
      cwd: ROOT,
      maxBuffer: 64 * 1024 * 1024,
    });
    // npm prints the JSON after whatever `prepack` printed.
    const [packed] = JSON.parse(stdout.slice(stdout.indexOf('[\n'))) as Array<{
      filename: string;
      files: Array<{ path: string }>;
    }>;
    packedFiles = packed!.files.map((file) => file.path);

    consumer = join(work, 'consumer');
    await mkdir(consumer);
    await writeFile(
      join(consumer, 'package.json'),
      JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
    );
    const devTools = [
      `typescript@${await installedVersion('typescript')}`,
      `@types/node@${await installedVersion('@types/node')}`,
    ];
    const install = (mode: string) =>
      run('npm', ['install', mode, '--no-audit', '--no-fund', join(work, packed!.filename), ...devTools], {
        cwd: consumer,
      });
    // The tarballs are in the npm cache (`npm ci` put them there), but a fresh machine's cache has no
    // package metadata, which resolving the tarball's version ranges needs: then, and only then, the
    // metadata comes from the registry `npm ci` itself used.
    const installed = await install('--offline').catch((error: Error) => {
      if (!error.message.includes('ENOTCACHED')) throw error;
      return install('--prefer-offline');
    });
    installOutput = installed.stdout + installed.stderr;
  }, 240_000);

  afterAll(async () => {
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('ships the compiled code, its declarations and the command — no sources, tests, fixtures or benchmarks', () => {
    expect(packedFiles).toContain('bin/runbridge.js');
    expect(packedFiles).toContain('dist/src/index.js');
    expect(packedFiles).toContain('dist/src/client/index.d.ts');
    expect(packedFiles).toContain('dist/adapters/environments/builtin-environments.js');
    expect(packedFiles).toEqual(expect.arrayContaining(['dist/ui/index.html', 'dist/ui/app.js', 'dist/ui/app.css']));
    const unexpected = packedFiles.filter(
      (path) =>
        !['package.json', 'README.md', 'LICENSE', 'bin/runbridge.js'].includes(path) &&
        !/^dist\/(src|adapters)\/.+\.(js|d\.ts)$/.test(path) &&
        !/^dist\/ui\/[\w.-]+$/.test(path),
    );
    expect(unexpected).toEqual([]);
  });

  it('installs without running or announcing any script of its own: the tarball ships what the build wrote', async () => {
    const manifest = JSON.parse(await readFile(join(consumer, 'node_modules/runbridge/package.json'), 'utf8')) as {
      scripts?: Record<string, string>;
    };
    const installTime = ['preinstall', 'install', 'postinstall', 'prepare', 'preprepare', 'postprepare'];
    expect(Object.keys(manifest.scripts ?? {}).filter((name) => installTime.includes(name))).toEqual([]);
    expect(installOutput).not.toMatch(/script/i);
  });

  it('runs `npx runbridge --help` from the compiled JavaScript', async () => {
    const { stdout } = await run('npx', ['--offline', 'runbridge', '--help'], { cwd: consumer });
    expect(stdout).toMatch(/^runbridge — drive an LLM through ORS episodes/);
    expect(stdout).toContain('runbridge serve');
    const installed = await readFile(join(consumer, 'node_modules/runbridge/bin/runbridge.js'), 'utf8');
    expect(installed).not.toContain('tsx');
  });

  it('exports exactly the public API from each entry point, and plays a whole run with it from plain ESM', async () => {
    await writeFile(join(consumer, 'consumer.mjs'), CONSUMER_MJS);
    const { stdout } = await run(process.execPath, ['consumer.mjs'], { cwd: consumer });
    const result = JSON.parse(stdout);
    expect(result.exported).toEqual(PUBLIC_API);
    expect(result).toMatchObject({ first: 'run.started', last: 'run.completed' });
    // The installed server serves the chat page built into the package (dist/ui/).
    expect(result).toMatchObject({ page: [200, true], script: [200, 'text/javascript; charset=utf-8'] });
  });

  it('keeps everything else private: deep imports and package.json are not exported', async () => {
    for (const path of ['runbridge/dist/src/main.js', 'runbridge/src/main.ts', 'runbridge/package.json']) {
      const script = `import(${JSON.stringify(path)}).then(() => console.log('imported'), (error) => console.log(error.code))`;
      const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: consumer });
      expect(stdout.trim()).toBe('ERR_PACKAGE_PATH_NOT_EXPORTED');
    }
  });

  it('type-checks a Node consumer of all three entry points and a browser consumer of the client against the shipped declarations', async () => {
    await writeFile(join(consumer, 'consumer.ts'), CONSUMER_TS);
    await writeFile(join(consumer, 'browser.ts'), BROWSER_TS);
    const common = { strict: true, noEmit: true, skipLibCheck: false, target: 'ES2022', module: 'NodeNext' };
    await writeFile(
      join(consumer, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { ...common, lib: ['ES2023'], types: ['node'] }, files: ['consumer.ts'] }),
    );
    await writeFile(
      join(consumer, 'tsconfig.browser.json'),
      JSON.stringify({ compilerOptions: { ...common, lib: ['ES2023', 'DOM'], types: [] }, files: ['browser.ts'] }),
    );
    const tsc = join(consumer, 'node_modules/typescript/bin/tsc');
    const check = (project: string) =>
      run(process.execPath, [tsc, '-p', project], { cwd: consumer }).catch((error) => {
        throw new Error(`tsc -p ${project} failed:\n${error.stdout}${error.stderr}`);
      });
    await check('tsconfig.json');
    await check('tsconfig.browser.json');
    // Two tsc runs; beside the other lanes on a busy 2-core machine they took over a minute.
  }, 120_000);
});

/** What a project that only talks to a bridge installs: it must not bring the server's dependencies. */
const CLIENT_MJS = `
import * as client from 'runbridge-client';

const api = client.createClient({ baseUrl: process.env.RUNBRIDGE_URL });
const { run_id } = await api.runs.create({ env: 'arith' });
const events = [];
for await (const event of api.runs.events(run_id)) events.push(event.event);
console.log(JSON.stringify({ exported: Object.keys(client).sort(), first: events[0], last: events.at(-1) }));
`;

/** A TypeScript consumer of the client package, in a browser: the DOM library and no Node types. */
const CLIENT_TS = BROWSER_TS.replace("from 'runbridge/client'", "from 'runbridge-client'");

/** The most a client-only install may bring: these packages, and this many bytes on disk (6.6 MB when measured). */
const CLIENT_INSTALL = { packages: ['eventsource-parser', 'runbridge-client', 'zod'], maxBytes: 10 * 1024 * 1024 };

/** Bytes of every file under `dir`. */
async function bytesUnder(dir: string): Promise<number> {
  const { readdir, stat } = await import('node:fs/promises');
  let total = 0;
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) total += (await stat(join(entry.parentPath, entry.name))).size;
  }
  return total;
}

/**
 * `npm run pack:client` (`scripts/pack-client.mjs`): the client alone as `runbridge-client`, installed
 * into an empty project from the npm cache, measured, played against a bridge and type-checked.
 */
describe('the client package', () => {
  let work: string;
  let consumer: string;
  let bridge: TestBridge;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'runbridge-client-pack-'));
    const { stdout } = await run(
      process.execPath,
      [join(ROOT, 'scripts/pack-client.mjs'), '--pack-destination', work],
      {
        cwd: ROOT,
        maxBuffer: 64 * 1024 * 1024,
      },
    );
    const tarball = stdout.trim().split('\n').at(-1)!;
    consumer = join(work, 'consumer');
    await mkdir(consumer);
    await writeFile(
      join(consumer, 'package.json'),
      JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
    );
    const install = (mode: string) =>
      run('npm', ['install', mode, '--no-audit', '--no-fund', tarball], { cwd: consumer });
    await install('--offline').catch((error: Error) => {
      if (!error.message.includes('ENOTCACHED')) throw error;
      return install('--prefer-offline');
    });
    bridge = await startTestBridge();
  }, 240_000);

  afterAll(async () => {
    await bridge?.shutdown();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it("brings eventsource-parser and zod and nothing of the server's: three packages, under 10 MB", async () => {
    const lock = JSON.parse(await readFile(join(consumer, 'node_modules/.package-lock.json'), 'utf8')) as {
      packages: Record<string, unknown>;
    };
    const installed = Object.keys(lock.packages).map((path) => path.replace(/^node_modules\//, ''));
    expect(installed.sort()).toEqual(CLIENT_INSTALL.packages);
    expect(await bytesUnder(join(consumer, 'node_modules'))).toBeLessThan(CLIENT_INSTALL.maxBytes);
  });

  it('exports what runbridge/client exports, and plays a whole run from plain ESM', async () => {
    await writeFile(join(consumer, 'client.mjs'), CLIENT_MJS);
    const { stdout } = await run(process.execPath, ['client.mjs'], {
      cwd: consumer,
      env: { ...process.env, RUNBRIDGE_URL: bridge.url },
    });
    expect(JSON.parse(stdout)).toEqual({
      exported: PUBLIC_API['runbridge/client'],
      first: 'run.started',
      last: 'run.completed',
    });
  });

  it('type-checks a browser consumer against its declarations alone', async () => {
    await writeFile(join(consumer, 'browser.ts'), CLIENT_TS);
    await writeFile(
      join(consumer, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          target: 'ES2022',
          module: 'NodeNext',
          lib: ['ES2023', 'DOM'],
          types: [],
        },
        files: ['browser.ts'],
      }),
    );
    // The TypeScript of this repository: the consumer installs nothing for it.
    await run(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], {
      cwd: consumer,
    }).catch((error) => {
      throw new Error(`tsc failed:\n${error.stdout}${error.stderr}`);
    });
  }, 60_000);
});
