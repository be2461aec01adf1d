// The `runbridge` command as bin/runbridge.js runs it, but from the TypeScript sources: the entry that
// test/support/compiled-sources.ts compiles with them, so process tests always run the code as it is now.
import { main } from '../../src/cli.js';

process.exitCode = await main(process.argv.slice(2));
