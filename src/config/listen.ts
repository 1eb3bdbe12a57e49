// Where the service and the demo listen: `listen`, and the `demo` section with its development hostnames.
import type { ServiceConfig } from '../config.js';
import { joinPath, readArray, readBoolean, readInteger, readObject, readString, type Problems } from './checks.js';
import { DEFAULTS } from './defaults.js';
import { DemoSchema, keysOf, ListenSchema } from '../schemas/config.js';
import { domainProblem } from './web.js';

export function readListen(
  problems: Problems,
  path: string,
  raw: unknown,
  fallback: { host: string; port: number },
): { host: string; port: number } | undefined {
  const listen = readObject(problems, path, raw, keysOf(ListenSchema));
  if (listen === undefined) return undefined;
  const host =
    listen.host === undefined ? fallback.host : readString(problems, joinPath(path, 'host'), listen.host, { max: 253 });
  const port =
    listen.port === undefined ? fallback.port : readInteger(problems, joinPath(path, 'port'), listen.port, 0, 65535);
  return host === undefined || port === undefined ? undefined : { host, port };
}

/** The demo is on in the built-in configuration only: a config file turns it on explicitly. */
export function readDemo(problems: Problems, raw: unknown): ServiceConfig['demo'] | undefined {
  const demo = readObject(problems, 'demo', raw ?? {}, keysOf(DemoSchema));
  if (demo === undefined) return undefined;
  const enabled = demo.enabled === undefined ? false : readBoolean(problems, 'demo.enabled', demo.enabled);
  const listen = readListen(problems, 'demo', { host: demo.host, port: demo.port }, DEFAULTS.demo);
  const devHostnames =
    demo.devHostnames === undefined
      ? []
      : readArray(problems, 'demo.devHostnames', demo.devHostnames, (p, v) => readDevHostname(problems, p, v), {
          max: 20,
        });
  return enabled === undefined || listen === undefined || devHostnames === undefined
    ? undefined
    : { enabled, ...listen, devHostnames };
}

/** A development hostname (e.g. "dev.example.test") that also serves the demo's local page; docs/demo.md. */
function readDevHostname(problems: Problems, path: string, value: unknown): string | undefined {
  const name = readString(problems, path, value, { max: 253 });
  if (name === undefined) return undefined;
  if (name === 'localhost') {
    problems.add(path, '"localhost" is always served; list only the other development hostnames');
    return undefined;
  }
  const problem = domainProblem(name);
  if (problem !== undefined) {
    problems.add(path, problem);
    return undefined;
  }
  return name;
}
