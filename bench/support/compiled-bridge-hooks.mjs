// The resolve hook behind compiled-bridge.mjs: a module of src/ or adapters/ resolves to its build in dist/.
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = new URL('../../', import.meta.url).href;
/** A module of the bridge, as its source (`.ts`) or as the `.js` its imports name. The chat page is built apart. */
const BRIDGE_MODULE = /^(?:src|adapters)\/(?!ui\/)(.*)\.[jt]s$/;

export async function resolve(specifier, context, nextResolve) {
  const named = pathOf(specifier, context.parentURL);
  const resolved = named === undefined ? await nextResolve(specifier, context) : undefined;
  const compiled = buildOf(named ?? resolved.url);
  if (compiled === undefined) return resolved ?? nextResolve(specifier, context);
  if (!existsSync(fileURLToPath(compiled))) throw new Error(`${compiled} is missing; run npm run build first.`);
  return { url: compiled, format: 'module', shortCircuit: true };
}

/** The URL a relative or absolute specifier names; undefined for a bare one (a package, a tsconfig path). */
function pathOf(specifier, parentURL) {
  if (specifier.startsWith('/')) return pathToFileURL(specifier).href;
  if (specifier.startsWith('file:')) return specifier;
  if (/^\.{1,2}\//.test(specifier) && parentURL?.startsWith('file:')) return new URL(specifier, parentURL).href;
  return undefined;
}

function buildOf(url) {
  const match = url.startsWith(ROOT) ? BRIDGE_MODULE.exec(url.slice(ROOT.length)) : null;
  return match ? `${ROOT}dist/${url.slice(ROOT.length, -3)}.js` : undefined;
}
