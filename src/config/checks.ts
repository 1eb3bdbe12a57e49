// Where the configuration's problems are collected, so that validation goes on and reports every problem at
// once; the shape problems come first (the compiled schema's, src/schemas/config-problems.ts), and the
// loader's own checks then run only on the values whose shape is right (`clean`).
import type { ConfigProblem } from '../schemas/config-problems.js';

export class Problems {
  readonly list: string[] = [];
  /** Environment variable that supplied a path's value, so messages name what the operator actually set. */
  readonly sources = new Map<string, string>();
  private readonly paths: string[] = [];

  add(path: string, message: string): void {
    const source = this.sources.get(path);
    this.paths.push(path);
    this.list.push(`${path === '' ? '(top level)' : path}${source ? ` (from ${source})` : ''}: ${message}`);
  }

  /** Adds the problem if there is one; undefined either way (for `eachEntry`'s checks). */
  addIfAny(path: string, message: string | undefined): undefined {
    if (message !== undefined) this.add(path, message);
    return undefined;
  }

  /** Every problem of a schema check, each under `prefix` (an application of the admin API: `application`). */
  addAll(found: readonly ConfigProblem[], prefix = ''): void {
    for (const { path, message } of found)
      this.add(prefix === '' ? path : path === '' ? prefix : joinPath(prefix, path, path.startsWith('[')), message);
  }

  /** No problem at `path` or below it. */
  clean(path: string): boolean {
    return !this.paths.some((p) => p === path || p.startsWith(`${path}.`) || p.startsWith(`${path}[`) || path === '');
  }
}

export type Raw = Record<string, unknown>;

export const isObject = (value: unknown): value is Raw =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export function joinPath(path: string, key: string | number, raw = false): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return path === '' ? key : raw ? `${path}${key}` : `${path}.${key}`;
}

/**
 * Checks each entry of the list at `path` whose shape is right with `check` (which may write its value
 * back, resolved), then reports a repeated entry at its second place. The list's entries, or undefined
 * when the list is not one.
 */
export function eachEntry(
  problems: Problems,
  path: string,
  list: unknown,
  check?: (entryPath: string, value: unknown) => unknown,
): unknown[] | undefined {
  if (!Array.isArray(list)) return undefined;
  list.forEach((value, index) => {
    const at = joinPath(path, index);
    if (check !== undefined && problems.clean(at)) list[index] = check(at, value) ?? value;
  });
  const seen: string[] = [];
  list.forEach((value, index) => {
    const at = joinPath(path, index);
    if (!problems.clean(at)) return;
    const key = JSON.stringify(value);
    if (seen.includes(key)) problems.add(at, `duplicate entry ${key}`);
    else seen.push(key);
  });
  return list;
}
