// A webhook receiver for the tests: node:http on 127.0.0.1 (port 0) that checks every delivery's Standard
// Webhooks signature with the secret it was given (an independent implementation of the check, so a wrong
// signature fails the test), records what arrived, and can hang, hold (answer later, on `release()`) or fail
// requests on demand. Each delivery is also checked against its event type's schema in the catalogue.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { compile } from '../../src/schemas/typebox.js';
import { WEBHOOK_EVENTS, type WebhookEventType, webhookBodySchema } from '../../src/schemas/webhook-events.js';

export interface Delivery {
  readonly id: string;
  readonly timestamp: number;
  readonly signature: string;
  readonly body: string;
  /** Whether the signature verified with the receiver's secret. */
  readonly verified: boolean;
  readonly event: { readonly type: string; readonly timestamp: string; readonly data: Record<string, unknown> };
  /** How the body breaks its event type's schema in the catalogue (src/schemas/webhook-events.ts); [] conforms. */
  readonly problems: readonly string[];
}

/** The ways `event` breaks the catalogue's body schema of its type (an unknown type is one problem). */
export function eventProblems(event: { readonly type: string; readonly [key: string]: unknown }): string[] {
  if (!Object.hasOwn(WEBHOOK_EVENTS, event.type))
    return [`type: ${JSON.stringify(event.type)} is not in the catalogue`];
  return compile(webhookBodySchema(event.type as WebhookEventType)).explain(event);
}

export type ReceiverMode = 'accept' | 'hang' | 'hold' | 'fail';

export interface Receiver {
  readonly url: string;
  mode: ReceiverMode;
  /** Deliveries answered 2xx, in order of arrival. */
  readonly accepted: Delivery[];
  /** Every request that arrived (hung and failed ones too). */
  readonly seen: Delivery[];
  /** Requests that arrived in `hold` mode and are not answered yet. */
  readonly held: readonly Delivery[];
  /** Answers every held request 2xx (they count as accepted) and accepts from now on. */
  release(): void;
  close(): Promise<void>;
}

/** Standard Webhooks: HMAC-SHA256 over "id.timestamp.body", keyed with the base64 after whsec_. */
export function verifySignature(secret: string, id: string, timestamp: string, body: string, header: string): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest();
  return header.split(' ').some((part) => {
    const [version, value] = part.split(',', 2);
    if (version !== 'v1' || value === undefined) return false;
    const given = Buffer.from(value, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

export async function startReceiver(secret: string, mode: ReceiverMode = 'accept'): Promise<Receiver> {
  const sockets = new Set<Socket>();
  const holding: { delivery: Delivery; res: ServerResponse }[] = [];
  const receiver = { mode, accepted: [] as Delivery[], seen: [] as Delivery[] } as Receiver & { url: string };
  Object.defineProperty(receiver, 'held', { get: () => holding.map((h) => h.delivery) });
  receiver.release = () => {
    receiver.mode = 'accept';
    for (const { delivery, res } of holding.splice(0)) {
      receiver.accepted.push(delivery);
      res.writeHead(204).end();
    }
  };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const id = String(req.headers['webhook-id'] ?? '');
      const timestamp = String(req.headers['webhook-timestamp'] ?? '');
      const signature = String(req.headers['webhook-signature'] ?? '');
      let event: Delivery['event'];
      try {
        event = JSON.parse(body) as Delivery['event'];
      } catch {
        event = { type: '(not JSON)', timestamp: '', data: {} };
      }
      const delivery: Delivery = {
        id,
        timestamp: Number(timestamp),
        signature,
        body,
        verified: verifySignature(secret, id, timestamp, body, signature),
        event,
        problems: eventProblems(event),
      };
      receiver.seen.push(delivery);
      if (receiver.mode === 'hang') return; // never answered: the sender's timeout (or death) ends it
      if (receiver.mode === 'hold') {
        holding.push({ delivery, res });
        return;
      }
      if (receiver.mode === 'fail') {
        res.writeHead(503).end();
        return;
      }
      receiver.accepted.push(delivery);
      res.writeHead(204).end();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  receiver.close = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });
  return receiver;
}
