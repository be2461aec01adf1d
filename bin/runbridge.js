#!/usr/bin/env node
// The `runbridge` command: the CLI compiled to dist/ by `npm run build` (which `npm pack` and `npm start`
// run first). Tests run the same `main` from the sources instead (test/support/spawn-runbridge.ts).
const CLI = new URL('../dist/src/cli.js', import.meta.url);

let cli;
try {
  cli = await import(CLI.href);
} catch (error) {
  if (error?.code === 'ERR_MODULE_NOT_FOUND' && error.url === CLI.href) {
    process.stderr.write(
      'runbridge: the compiled CLI (dist/) is missing; in a clone of the repository, run `npm run build` (or `npm start`, which builds first).\n',
    );
    process.exit(1);
  }
  throw error;
}
process.exitCode = await cli.main(process.argv.slice(2));
