// One container of the image under test, run as an operator would (read-only, a tmpfs on /tmp, host
// networking), its listeners on 127.0.0.1 with ports the system picks: the addresses are read from the
// lines the service prints (`podman logs`). Every wait is bounded; `remove()` removes it with its volumes.
import { randomBytes } from 'node:crypto';
import { podman, runCommand } from './podman.js';

const START_LIMIT_MS = 60_000;
const SERVICE_LINE = /passkey-server: service listening on (http:\/\/\S+)/g;
const ADMIN_LINE = /passkey-server: admin listening on (http:\/\/\S+)/g;

export interface ContainerSpec {
  readonly image: string;
  /** More `podman run` options (`-v`, `-e`, …). */
  readonly options?: readonly string[];
  /** The command after the image (the ENTRYPOINT's arguments); default: the image's CMD. */
  readonly command?: readonly string[];
}

/** A name no other run uses, for containers and volumes. */
export const uniqueName = (label: string) => `passkey-image-test-${label}-${randomBytes(4).toString('hex')}`;

/** The `podman run` options every test container gets: the service's listeners on loopback, ports chosen. */
const LOOPBACK = ['-e', 'PASSKEY_HOST=127.0.0.1', '-e', 'PASSKEY_ADMIN_HOST=127.0.0.1', '-e', 'PASSKEY_PORT=0'];

export class Container {
  /** The service's and the admin listener's addresses of the latest start. */
  serviceUrl = '';
  adminUrl = '';
  private starts = 0;

  private constructor(readonly name: string) {}

  /** `podman run -d`, then waits until the service prints its addresses. */
  static async run(spec: ContainerSpec, label: string): Promise<Container> {
    const container = new Container(uniqueName(label));
    await podman([
      'run',
      '--detach',
      '--name',
      container.name,
      '--network',
      'host',
      '--read-only',
      '--tmpfs',
      '/tmp',
      ...LOOPBACK,
      ...(spec.options ?? []),
      spec.image,
      ...(spec.command ?? []),
    ]);
    await container.listening();
    return container;
  }

  /** Everything the service printed so far: its stdout, then its stderr (the JSON log lines). */
  async logs(): Promise<string> {
    const ran = await runCommand('podman', ['logs', this.name], 30_000);
    return `${ran.stdout}${ran.stderr}`;
  }

  /** Waits (bounded) for the addresses of the next start; fails with the logs when it exits first. */
  async listening(): Promise<void> {
    this.starts += 1;
    const deadline = Date.now() + START_LIMIT_MS;
    while (Date.now() < deadline) {
      const logs = await this.logs();
      const services = [...logs.matchAll(SERVICE_LINE)];
      const admins = [...logs.matchAll(ADMIN_LINE)];
      if (services.length >= this.starts && admins.length >= this.starts) {
        this.serviceUrl = services[this.starts - 1]![1]!;
        this.adminUrl = admins[this.starts - 1]![1]!;
        return;
      }
      if ((await this.state()).Status === 'exited') throw new Error(`${this.name} exited while starting:\n${logs}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    throw new Error(`${this.name} printed no addresses within ${START_LIMIT_MS} ms:\n${await this.logs()}`);
  }

  /** Waits (bounded) until the logs show `pattern`. */
  async waitForLog(pattern: RegExp, limitMs = 10_000): Promise<void> {
    const deadline = Date.now() + limitMs;
    while (!pattern.test(await this.logs())) {
      if (Date.now() > deadline) throw new Error(`${this.name} logged no ${pattern} within ${limitMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** `podman inspect`'s State (Status, ExitCode, …). */
  async state(): Promise<{ Status: string; ExitCode: number; Running: boolean }> {
    return JSON.parse(await podman(['inspect', '--format', '{{json .State}}', this.name]));
  }

  /** `podman inspect` of the container, parsed. */
  async inspect(): Promise<any> {
    return JSON.parse(await podman(['inspect', this.name]))[0];
  }

  /** Runs a command inside it (as its user); resolves its exit code and output. */
  async exec(command: readonly string[]): Promise<{ code: number; output: string }> {
    try {
      return { code: 0, output: await podman(['exec', this.name, ...command]) };
    } catch (error) {
      const code = /exited (\d+)/.exec((error as Error).message)?.[1];
      return { code: Number(code ?? -1), output: (error as Error).message };
    }
  }

  /** `podman stop` with the engine's default timeout (10 s, then SIGKILL); resolves how long it took. */
  async stop(): Promise<number> {
    const started = performance.now();
    await podman(['stop', this.name], 30_000);
    return performance.now() - started;
  }

  async start(): Promise<void> {
    await podman(['start', this.name]);
    await this.listening();
  }

  async restart(): Promise<void> {
    await podman(['restart', this.name], 30_000);
    await this.listening();
  }

  /** Removes it, running or not, with its anonymous volumes. */
  async remove(): Promise<void> {
    await podman(['rm', '--force', '--volumes', '--time', '0', this.name]).catch(() => undefined);
  }
}
