/**
 * The layering of docs/architecture.md, checked on every `npm test` (`npm run lint:layers`): each folder
 * may import only the folders listed for it, and no two files import each other, however indirectly.
 * An import that breaks a rule fails the test run with the rule's name and comment.
 */

const { builtinModules } = require('node:module');

/** A path under src/ of one of `folders` (a folder, or a file such as `errors.ts`). */
const under = (...folders) => `^src/(${folders.join('|')})([/.]|$)`;

/** Node's built-in modules, as dependency-cruiser names them (`fs`, `node:test`). */
const NODE_BUILT_INS = `^(node:)?(${builtinModules.map((name) => name.replace(/[/]/g, '\\/')).join('|')})$`;

/** The server's own packages: what loads a server, a store or an operator's signals, slowly. */
const SERVER_PACKAGES = '^node_modules/(koa|koa-router|@koa|ioredis|prom-client|pino|pino-pretty|@opentelemetry)/';

/** What each part may import, besides itself and npm packages. */
const ALLOWED = {
  protocol: [],
  'errors.ts': ['protocol'],
  config: ['protocol'],
  sse: [],
  'http-client': [],
  models: ['protocol', 'errors.ts'],
  ors: ['protocol', 'errors.ts', 'http-client', 'sse'],
  telemetry: ['protocol', 'config', 'package-version.ts'],
  runs: ['protocol', 'errors.ts', 'models', 'ors', 'sse', 'telemetry'],
  webhooks: ['runs', 'protocol', 'errors.ts', 'config', 'telemetry'],
  store: ['runs', 'rollouts', 'webhooks', 'a2a', 'protocol', 'errors.ts', 'config', 'telemetry'],
  a2a: ['runs', 'protocol', 'errors.ts', 'package-version.ts', 'sse', 'http/formats'],
  http: [
    'a2a',
    'runs',
    'rollouts',
    'protocol',
    'errors.ts',
    'models',
    'ors',
    'sse',
    'config',
    'package-version.ts',
    'telemetry',
  ],
  rollouts: ['runs', 'models', 'ors', 'protocol', 'errors.ts', 'telemetry', 'client'],
  client: ['protocol', 'sse', 'http-client', 'http/routes'],
};

const layerRules = Object.entries(ALLOWED).map(([part, allowed]) => ({
  name: `layers:${part}`,
  comment: `src/${part} may import only ${allowed.length ? allowed.map((p) => `src/${p}`).join(', ') : 'npm packages'} (docs/architecture.md)`,
  severity: 'error',
  from: { path: under(part) },
  to: { path: '^src/', pathNot: [under(part, ...allowed)] },
}));

/** What browsers load: runbridge/client, the chat page, and the route declarations both read. */
const BROWSER_CODE = under('client', 'ui', 'http/routes');

/** What nothing browsers load may reach, however indirectly: one rule each, so a failure names which. */
const browserRules = [
  {
    name: 'browser-code-no-node',
    comment:
      'runbridge/client and the chat page run in browsers: nothing they load, however indirectly, imports a node: built-in.',
    unreachable: NODE_BUILT_INS,
  },
  {
    name: 'no-server-in-the-client',
    comment:
      'runbridge/client, the chat page and the route declarations load no server package (Koa, ioredis, pino, prom-client, OpenTelemetry), however indirectly: they run in browsers, and the CLI talks to a bridge without starting one.',
    unreachable: SERVER_PACKAGES,
  },
].map(({ name, comment, unreachable }) => ({
  name,
  comment,
  severity: 'error',
  from: { path: BROWSER_CODE },
  to: { path: unreachable, reachable: true },
}));

module.exports = {
  forbidden: [
    ...layerRules,
    ...browserRules,
    {
      name: 'no-cycles',
      comment:
        'Files that import each other, however indirectly, are one module split in two: make the arrow go one way.',
      severity: 'error',
      from: { path: '^(src|adapters)/' },
      to: { circular: true },
    },
    {
      name: 'adapters-on-the-contract',
      comment:
        'Model adapters depend on the model contract, their own SDK, src/http-client and src/sse only; environments on the ORS framework.',
      severity: 'error',
      from: { path: '^adapters/' },
      to: { path: under('http', 'runs', 'store', 'webhooks', 'rollouts', 'commands', 'client', 'ui', 'main.ts') },
    },
    {
      name: 'model-contract-owns-its-types',
      comment:
        'The model contract (src/models) and its adapters speak their own types; the run events are the wire, which src/runs maps them to.',
      severity: 'error',
      from: { path: '^(src/models|adapters/models)/' },
      to: { path: '^src/protocol/run-events[.]ts$' },
    },
    {
      name: 'ui-through-the-client',
      comment:
        'The chat page talks to the bridge through runbridge/client; of the server it may use only src/protocol.',
      severity: 'error',
      from: { path: under('ui') },
      to: { path: '^src/', pathNot: [under('ui', 'client', 'protocol')] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
