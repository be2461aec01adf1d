#!/usr/bin/env node
// Runs the TypeScript sources directly through tsx, so `npx runbridge …` works right after
// `npm install` on a fresh clone with no build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli.ts');
process.exitCode = await main(process.argv.slice(2));
