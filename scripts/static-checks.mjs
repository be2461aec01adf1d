// What `npm test` checks before the tests, other than Biome: `npm run typecheck` and `npm run lint:layers`
// at once (scripts/at-once.mjs). One after the other, the layering check ran while tsc's longest project
// had a core to itself and the other core idled.
import { runAtOnce, TYPECHECK_JOBS } from './at-once.mjs';

process.exitCode = await runAtOnce([
  ...TYPECHECK_JOBS,
  { name: 'npm run lint:layers', command: 'npm', args: ['run', '--silent', 'lint:layers'] },
]);
