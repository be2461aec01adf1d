// The resolve hook of register.mjs: runs off the main thread, so it writes to the log file itself.
import { appendFileSync } from 'node:fs';

export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  const log = process.env.RUNBRIDGE_TEST_LOADED_LOG;
  if (log && resolved.url.includes('/node_modules/')) appendFileSync(log, `${resolved.url}\n`);
  return resolved;
}
