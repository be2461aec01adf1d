/**
 * Serves index.html on loopback, on another origin than the bridge — as a real web app would be —
 * and beside it the browser build of runbridge/client that the page imports.
 *
 *   node examples/browser/serve.mjs      # PORT (default 8081); PORT=0 takes a free port
 *
 * The client is dist/browser/client.js, which `npm run build` (and so `npm ci`) makes; set
 * RUNBRIDGE_CLIENT_JS to serve another build of it. Prints the page's URL and the
 * RUNBRIDGE_CORS_ORIGINS value the bridge needs to let the page call it.
 */
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';

const PAGE = new URL('./index.html', import.meta.url);
const CLIENT = process.env.RUNBRIDGE_CLIENT_JS ?? new URL('../../dist/browser/client.js', import.meta.url);
const port = Number(process.env.PORT ?? 8081);

/** What is served, by path: the file, its type, and what to do when it cannot be read. */
const FILES = {
  '/': { file: PAGE, type: 'text/html; charset=utf-8', hint: '' },
  '/index.html': { file: PAGE, type: 'text/html; charset=utf-8', hint: '' },
  '/runbridge-client.js': {
    file: CLIENT,
    type: 'text/javascript; charset=utf-8',
    hint: ' Run `npm run build` to make the browser build of the client.',
  },
};

const server = createServer(async (req, res) => {
  const path = new URL(req.url ?? '/', 'http://page').pathname;
  const served = FILES[path];
  if (req.method !== 'GET' || served === undefined) {
    res
      .writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' })
      .end('Only / and /runbridge-client.js are served here.\n');
    return;
  }
  try {
    // Read on every request, so an edit or a rebuild shows on reload.
    const body = await readFile(served.file);
    res.writeHead(200, { 'Content-Type': served.type, 'Cache-Control': 'no-store' }).end(body);
  } catch (error) {
    res
      .writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' })
      .end(`Could not read ${served.file}: ${error.message}.${served.hint}\n`);
  }
});

server.listen(port, '127.0.0.1', () => {
  const origin = `http://127.0.0.1:${server.address().port}`;
  console.log(
    `${origin}/ serves the runbridge example page; start the bridge with RUNBRIDGE_CORS_ORIGINS=${origin} so the page may call it.`,
  );
});
