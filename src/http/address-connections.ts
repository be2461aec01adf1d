import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/** A connection of one client address, and whether a request is being served on it. */
interface Held {
  socket: Socket;
  busy: boolean;
}

/**
 * Holds at most `max` connections per client address (docs/security.md, "Caps"). A connection past the
 * cap takes the place of the address's oldest one that is not serving a request — one still sending its
 * headers (a slowloris), or idle between keep-alive requests — so a crowd of slow connections from one
 * address can neither fill the server nor keep `/health` or a real request of that address out. Only when
 * every connection of the address is serving a request (open event streams) is the new one closed.
 */
export function limitConnectionsPerAddress(server: Server, max: number): void {
  const byAddress = new Map<string, Held[]>();
  const heldOf = new WeakMap<Socket, Held>();

  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? '';
    const held: Held = { socket, busy: false };
    heldOf.set(socket, held);
    let list = byAddress.get(address);
    if (list === undefined) {
      list = [];
      byAddress.set(address, list);
    }
    list.push(held);
    socket.once('close', () => {
      const index = list.indexOf(held);
      if (index >= 0) list.splice(index, 1);
      if (list.length === 0 && byAddress.get(address) === list) byAddress.delete(address);
    });
    if (list.length <= max) return;
    const idle = list.find((other) => !other.busy && other !== held);
    (idle ?? held).socket.destroy();
  });

  server.on('request', (request, response) => {
    const held = heldOf.get(request.socket);
    if (held === undefined) return;
    held.busy = true;
    response.once('close', () => {
      held.busy = false;
    });
  });
}
