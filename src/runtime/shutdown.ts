// Graceful shutdown: stop accepting, let what is in flight finish (up to a deadline), then close the stores.
// Order: readiness fails first (load balancers move traffic away), then listeners close, then stores.
import type { Server } from 'node:http';
import type { Logger } from '../util/log.js';

export interface ShutdownPlan {
  /** Listeners to close (the service, the admin listener, the demo). */
  readonly servers: readonly Server[];
  /** Closed after the servers, in order (credentials, challenges, rate-limit store, audit, …). */
  readonly closers: readonly { readonly name: string; readonly close: () => Promise<void> }[];
  /** Called first (e.g. Readiness.drain). */
  readonly beforeClose?: () => void;
  /** Wait this long after draining readiness before closing listeners (let the balancer notice). Default 0. */
  readonly drainDelayMs?: number;
  /** After this, connections still open are cut. Default 10 000 ms. */
  readonly deadlineMs?: number;
  readonly log?: Logger;
}

export interface ShutdownReport {
  /** Connections cut at the deadline (0 when everything finished in time). */
  readonly forcedServers: number;
  /** Closers that failed (their error is logged). */
  readonly failedClosers: string[];
}

export async function gracefulShutdown(plan: ShutdownPlan): Promise<ShutdownReport> {
  plan.beforeClose?.();
  if (plan.drainDelayMs) await new Promise((resolve) => setTimeout(resolve, plan.drainDelayMs));
  const deadline = plan.deadlineMs ?? 10_000;
  let forcedServers = 0;
  await Promise.all(
    plan.servers.map(
      (server) =>
        new Promise<void>((resolve) => {
          if (!server.listening) return resolve();
          const timer = setTimeout(() => {
            forcedServers += 1;
            plan.log?.warn(
              { event: 'shutdown_deadline', deadlineMs: deadline },
              'requests still running at the shutdown deadline; closing their connections',
            );
            server.closeAllConnections();
          }, deadline);
          server.close(() => {
            clearTimeout(timer);
            resolve();
          });
          // Keep-alive sockets with no request in flight would hold close() open until they time out.
          server.closeIdleConnections();
        }),
    ),
  );
  const failedClosers: string[] = [];
  for (const { name, close } of plan.closers) {
    try {
      await close();
    } catch (error) {
      failedClosers.push(name);
      plan.log?.error(
        { event: 'shutdown_close_failed', store: name, error: error instanceof Error ? error.message : String(error) },
        'closing a store failed',
      );
    }
  }
  plan.log?.info({ event: 'shutdown_complete', forcedServers, failedClosers }, 'shut down');
  return { forcedServers, failedClosers };
}
