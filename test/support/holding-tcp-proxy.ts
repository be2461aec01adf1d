import { once } from 'node:events';
import { type AddressInfo, createConnection, createServer, type Socket } from 'node:net';

/** A running {@link startHoldingTcpProxy}. */
export interface HoldingTcpProxy {
  /** The proxy's port on 127.0.0.1; connect here instead of to the upstream. */
  port: number;
  /** Holds every byte from now on, both ways, on every connection (new ones too): a network that stalls. */
  hold(): void;
  /** Delivers what was held, in order, and forwards again. */
  release(): void;
  /** Stops listening and closes every connection. */
  close(): Promise<void>;
}

/**
 * A loopback TCP proxy in front of `upstreamPort` that can stall the network: while held, the bytes
 * each side sends are kept (neither peer sees a close or a reset, as with a switch that stops
 * forwarding), then delivered in order on release. A connection closed on one side is closed on the
 * other, so a peer restarting is seen as it would be without the proxy.
 */
export async function startHoldingTcpProxy(upstreamPort: number): Promise<HoldingTcpProxy> {
  let holding = false;
  const held: Array<{ to: Socket; chunk: Buffer }> = [];
  const sockets = new Set<Socket>();

  const forward = (to: Socket) => (chunk: Buffer) => {
    if (holding || held.length > 0) held.push({ to, chunk });
    else to.write(chunk);
  };
  const server = createServer((client) => {
    const upstream = createConnection({ host: '127.0.0.1', port: upstreamPort });
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
    }
    client.on('data', forward(upstream));
    upstream.on('data', forward(client));
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');

  return {
    port: (server.address() as AddressInfo).port,
    hold() {
      holding = true;
    },
    release() {
      holding = false;
      for (const { to, chunk } of held.splice(0)) if (!to.destroyed) to.write(chunk);
    },
    async close() {
      const closed = new Promise((resolve) => server.close(resolve));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}
