// The admin listener: its own node:http server, on 127.0.0.1 by default, on a port of its own.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdminHandler, type AdminHandlerDeps } from './http.js';

export interface AdminServerOptions extends AdminHandlerDeps {
  /** Default 127.0.0.1: the admin API is not for the internet. */
  readonly host?: string;
  /** Default 8788; 0 picks a free port (tests). */
  readonly port?: number;
}

export interface AdminServer {
  readonly server: Server;
  /** e.g. http://127.0.0.1:8788 */
  readonly url: string;
  readonly port: number;
  /** Stops accepting, lets in-flight requests finish (closing idle keep-alive sockets), then resolves. */
  close(): Promise<void>;
}

export const DEFAULT_ADMIN_PORT = 8788;

export async function startAdminServer(options: AdminServerOptions): Promise<AdminServer> {
  const server = createServer(createAdminHandler(options));
  server.headersTimeout = 10_000;
  // A body's deadline is per request (streams.ts bodyDeadline): 30 s in full, but an import's file streams
  // for as long as the client keeps sending it.
  server.requestTimeout = 0;
  server.keepAliveTimeout = 5_000;
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? DEFAULT_ADMIN_PORT, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    server,
    url: `http://${shownHost}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}
