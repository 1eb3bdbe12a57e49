// A TCP proxy the test controls, standing between a service and a real backend. Lets fault tests stop
// "PostgreSQL" or "Redis" without touching the machine's shared servers:
//   cut()     drops every connection and refuses new ones (the backend stopped or restarted);
//   freeze()  keeps connections open but forwards nothing (a hung backend, a silent network);
//   restore() lets traffic through again (what was held back by a freeze is delivered).

import net from 'node:net';

export interface ControlledProxy {
  /** The local port clients connect to. */
  readonly port: number;
  /** Rewrites a backend URL (postgres://…, redis://…) to go through this proxy. */
  url(backendUrl: string): string;
  cut(): void;
  freeze(): void;
  restore(): void;
  close(): Promise<void>;
}

interface Link {
  readonly from: net.Socket;
  readonly to: net.Socket;
  readonly held: Buffer[];
}

export async function startProxy(targetHost: string, targetPort: number): Promise<ControlledProxy> {
  const sockets = new Set<net.Socket>();
  const links = new Set<Link>();
  let refusing = false;
  let frozen = false;

  const forward = (from: net.Socket, to: net.Socket) => {
    const link: Link = { from, to, held: [] };
    links.add(link);
    from.on('data', (chunk: Buffer) => {
      if (frozen) link.held.push(chunk);
      else to.write(chunk);
    });
    from.on('close', () => links.delete(link));
  };

  const server = net.createServer((client) => {
    if (refusing) {
      client.destroy();
      return;
    }
    const upstream = net.connect(targetPort, targetHost);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
    }
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    forward(client, upstream);
    forward(upstream, client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as net.AddressInfo).port;
  const dropAll = () => {
    for (const socket of sockets) socket.destroy();
  };
  return {
    port,
    url(backendUrl) {
      const parsed = new URL(backendUrl);
      parsed.hostname = '127.0.0.1';
      parsed.port = String(port);
      return parsed.toString();
    },
    cut() {
      refusing = true;
      dropAll();
    },
    freeze() {
      frozen = true;
    },
    restore() {
      refusing = false;
      frozen = false;
      for (const link of links) {
        for (const chunk of link.held.splice(0)) link.to.write(chunk);
      }
    },
    async close() {
      refusing = true;
      dropAll();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
