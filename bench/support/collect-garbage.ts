import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');
// `gc` is only bound in contexts created after the flag is set, so a fresh context hands it over.
const gc = runInNewContext('gc') as () => void;

/** Runs a full garbage collection, so a memory reading right after holds only what is live. */
export function collectGarbage(): void {
  gc();
}
