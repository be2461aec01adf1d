/**
 * Serves index.html on loopback, on another origin than the bridge — as a real web app would be.
 *
 *   node examples/browser/serve.mjs      # PORT (default 8081); PORT=0 takes a free port
 *
 * Prints the page's URL and the RUNBRIDGE_CORS_ORIGINS value the bridge needs to let the page call it.
 */
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';

const PAGE = new URL('./index.html', import.meta.url);
const port = Number(process.env.PORT ?? 8081);

const server = createServer(async (req, res) => {
  const path = new URL(req.url ?? '/', 'http://page').pathname;
  if (req.method !== 'GET' || (path !== '/' && path !== '/index.html')) {
    res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Only / is served here.\n');
    return;
  }
  try {
    // Read on every request, so an edit to the page shows on reload.
    const page = await readFile(PAGE);
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' }).end(page);
  } catch (error) {
    res
      .writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' })
      .end(`Could not read ${PAGE.pathname}: ${error.message}\n`);
  }
});

server.listen(port, '127.0.0.1', () => {
  const origin = `http://127.0.0.1:${server.address().port}`;
  console.log(
    `${origin}/ serves the runbridge example page; start the bridge with RUNBRIDGE_CORS_ORIGINS=${origin} so the page may call it.`,
  );
});
