import { once } from 'node:events';
import { type AddressInfo, createServer } from 'node:net';

/** A loopback port nothing listens on: one that was free a moment ago (connecting to it is refused). */
export async function unusedPort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
