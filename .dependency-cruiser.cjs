/**
 * The layering of docs/architecture.md, checked on every `npm test` (`npm run lint:layers`): each folder
 * may import only the folders listed for it, and no two files import each other, however indirectly.
 * An import that breaks a rule fails the test run with the rule's name and comment.
 */

/** A path under src/ of one of `folders` (a folder, or a file such as `errors.ts`). */
const under = (...folders) => `^src/(${folders.join('|')})([/.]|$)`;

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
  runs: ['protocol', 'errors.ts', 'models', 'ors', 'telemetry'],
  webhooks: ['runs', 'protocol', 'errors.ts', 'config', 'telemetry'],
  store: ['runs', 'rollouts', 'webhooks', 'protocol', 'errors.ts', 'config', 'telemetry'],
  http: [
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
  rollouts: ['runs', 'models', 'ors', 'protocol', 'errors.ts', 'telemetry'],
  client: ['protocol', 'sse', 'http-client'],
};

const layerRules = Object.entries(ALLOWED).map(([part, allowed]) => ({
  name: `layers:${part}`,
  comment: `src/${part} may import only ${allowed.length ? allowed.map((p) => `src/${p}`).join(', ') : 'npm packages'} (docs/architecture.md)`,
  severity: 'error',
  from: { path: under(part) },
  to: { path: '^src/', pathNot: [under(part, ...allowed)] },
}));

module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: 'no-cycles',
      comment:
        'Files that import each other, however indirectly, are one module split in two: make the arrow go one way.',
      severity: 'error',
      from: { path: '^(src|adapters)/' },
      to: { circular: true },
    },
    {
      name: 'client-types-only',
      comment: 'runbridge/client runs in browsers: it takes only types from src/protocol/, no schema code.',
      severity: 'error',
      from: { path: under('client') },
      to: { path: under('protocol'), dependencyTypesNot: ['type-only'] },
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
