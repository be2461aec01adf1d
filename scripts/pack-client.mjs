// `npm run pack:client`: the client alone as a package of its own, `runbridge-client`, for projects that
// only talk to a bridge. `runbridge` brings the server's dependencies (the model SDKs, OpenTelemetry,
// Koa, ioredis: over 100 packages and 100 MB); this one brings eventsource-parser, and zod, whose
// schemas its types are inferred from. It holds the modules of dist/src that the client's entry point
// reaches (JavaScript and declarations), nothing else, and refuses to pack when one of them imports a
// package it does not depend on — a server module slipping into the client.
//
//   node scripts/pack-client.mjs [--pack-destination DIR]     # default: this folder, as `npm pack`
//
// Builds dist/ first when a source is newer (scripts/build.mjs --if-stale). Prints the tarball's path.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, posix, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const built = join(root, 'dist/src');
const stage = join(root, 'dist/client-package');
const ENTRY = 'client/index';
/** The packages the client's modules may import: what the client package depends on. */
const DEPENDENCIES = ['eventsource-parser', 'zod'];

/** Every module of dist/src the client's entry point reaches, as paths relative to dist/src. */
export function clientModules() {
  const seen = new Set();
  const visit = (path) => {
    if (seen.has(path)) return;
    seen.add(path);
    const text = readFileSync(join(built, path), 'utf8');
    // `from '…'` of static imports and re-exports, `import('…')` of declarations.
    for (const [, specifier] of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*)['"]([^'"]+)['"]/g)) {
      if (specifier.startsWith('.')) {
        visit(
          posix
            .normalize(posix.join(posix.dirname(path), specifier))
            .replace(/\.js$/, path.endsWith('.d.ts') ? '.d.ts' : '.js'),
        );
      } else if (!DEPENDENCIES.some((name) => specifier === name || specifier.startsWith(`${name}/`))) {
        throw new Error(
          `pack-client: dist/src/${path} imports "${specifier}", which runbridge-client does not depend on; ` +
            'keep server code out of src/client (docs/client.md).',
        );
      }
    }
  };
  visit(`${ENTRY}.js`);
  visit(`${ENTRY}.d.ts`);
  return [...seen].sort();
}

function packClient(destination) {
  execFileSync(process.execPath, [join(root, 'scripts/build.mjs'), '--if-stale'], { stdio: 'inherit' });
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  rmSync(stage, { recursive: true, force: true });
  for (const path of clientModules()) {
    mkdirSync(dirname(join(stage, path)), { recursive: true });
    copyFileSync(join(built, path), join(stage, path));
  }
  writeFileSync(
    join(stage, 'package.json'),
    `${JSON.stringify(
      {
        name: 'runbridge-client',
        version: manifest.version,
        description: 'The typed client of a runbridge server (runbridge/client), without the server.',
        type: 'module',
        license: manifest.license,
        engines: manifest.engines,
        exports: { '.': { types: `./${ENTRY}.d.ts`, default: `./${ENTRY}.js` } },
        types: `./${ENTRY}.d.ts`,
        dependencies: Object.fromEntries(DEPENDENCIES.map((name) => [name, manifest.dependencies[name]])),
      },
      null,
      2,
    )}\n`,
  );
  writeFileSync(
    join(stage, 'README.md'),
    '# runbridge-client\n\n' +
      'The typed client of a runbridge server, for Node 20+ and browsers: `runbridge/client` of the `runbridge` ' +
      "package, without the server and its dependencies. `import { createClient } from 'runbridge-client';` — " +
      "the API is that of runbridge's docs/client.md.\n",
  );
  const [packed] = JSON.parse(
    execFileSync('npm', ['pack', '--json', '--pack-destination', destination], { cwd: stage, encoding: 'utf8' }),
  );
  return join(destination, packed.filename);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const at = process.argv.indexOf('--pack-destination');
  const destination = resolve(at < 0 ? root : process.argv[at + 1]);
  console.log(packClient(destination));
}
