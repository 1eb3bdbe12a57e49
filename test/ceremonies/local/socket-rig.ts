// The local rig served on 127.0.0.1 (port 0): every call of a LocalFlow goes through node:http with fetch.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { InjectResponse } from '../../../src/http/app.js';
import type { RequestOptions } from '../../support/harness.js';
import { postOverSocket } from '../../support/socket-harness.js';
import { LocalRig, type LocalRigOptions } from './support.js';

export class SocketLocalRig extends LocalRig {
  #server: Server | undefined;
  #url = '';

  static async start(options: LocalRigOptions = {}): Promise<SocketLocalRig> {
    const rig = new SocketLocalRig(options);
    rig.#server = createServer((req, res) => rig.app.handler(req, res));
    await new Promise<void>((resolve) => rig.#server!.listen(0, '127.0.0.1', resolve));
    rig.#url = `http://127.0.0.1:${(rig.#server.address() as AddressInfo).port}`;
    return rig;
  }

  override post(path: string, body: unknown, options: RequestOptions = {}): Promise<InjectResponse> {
    return postOverSocket(`${this.#url}${path}`, this.h.headers({ origin: null, ...options }), body);
  }

  async close(): Promise<void> {
    this.#server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.#server ? this.#server.close(() => resolve()) : resolve()));
  }
}
