// `npm run typecheck`: tsc over the three projects — the code with its tests, the AI SDK chat page
// test app, the chat page — at once (scripts/at-once.mjs).
import { runAtOnce, TYPECHECK_JOBS } from './at-once.mjs';

process.exitCode = await runAtOnce(TYPECHECK_JOBS);
