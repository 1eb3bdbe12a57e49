// Small readers for untrusted JSON that record a problem (with the key's path) instead of throwing, so that
// validation goes on and reports every problem at once. Each returns undefined when the value is unusable.

export class Problems {
  readonly list: string[] = [];
  /** Environment variable that supplied a path's value, so messages name what the operator actually set. */
  readonly sources = new Map<string, string>();

  add(path: string, message: string): void {
    const source = this.sources.get(path);
    this.list.push(`${path === '' ? '(top level)' : path}${source ? ` (from ${source})` : ''}: ${message}`);
  }
}

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string')
    return `the string ${JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value)}`;
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${String(value)}`;
}

export const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** An object whose keys are all among `known` (every other key is a problem: typos must not pass silently). */
export function readObject(
  problems: Problems,
  path: string,
  value: unknown,
  known: readonly string[],
): JsonObject | undefined {
  if (!isObject(value)) {
    problems.add(path, `must be an object, got ${describe(value)}`);
    return undefined;
  }
  for (const key of Object.keys(value)) {
    if (!known.includes(key)) problems.add(joinPath(path, key), `unknown key (known keys here: ${known.join(', ')})`);
  }
  return value;
}

export function joinPath(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return path === '' ? key : `${path}.${key}`;
}

export function readString(
  problems: Problems,
  path: string,
  value: unknown,
  options: { min?: number; max?: number; pattern?: RegExp; hint?: string } = {},
): string | undefined {
  const { min = 1, max = 1024, pattern, hint } = options;
  if (typeof value !== 'string') {
    problems.add(path, `must be a string, got ${describe(value)}`);
    return undefined;
  }
  if (value.length < min || value.length > max) {
    problems.add(
      path,
      min === 1 && value.length === 0 ? 'must not be empty' : `must be ${min} to ${max} characters long`,
    );
    return undefined;
  }
  if (pattern && !pattern.test(value)) {
    problems.add(path, `${describe(value)} is not valid${hint ? `: ${hint}` : ''}`);
    return undefined;
  }
  return value;
}

export function readBoolean(problems: Problems, path: string, value: unknown): boolean | undefined {
  if (typeof value !== 'boolean') {
    problems.add(path, `must be true or false, got ${describe(value)}`);
    return undefined;
  }
  return value;
}

export function readInteger(
  problems: Problems,
  path: string,
  value: unknown,
  min: number,
  max: number,
): number | undefined {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    problems.add(path, `must be an integer from ${min} to ${max}, got ${describe(value)}`);
    return undefined;
  }
  return value;
}

export function readEnum<T extends string>(
  problems: Problems,
  path: string,
  value: unknown,
  allowed: readonly T[],
): T | undefined {
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    problems.add(path, `must be one of ${allowed.map((a) => JSON.stringify(a)).join(', ')}, got ${describe(value)}`);
    return undefined;
  }
  return value as T;
}

/** An array whose items each pass `item`; duplicates are problems when `unique`. */
export function readArray<T>(
  problems: Problems,
  path: string,
  value: unknown,
  item: (itemPath: string, itemValue: unknown) => T | undefined,
  options: { min?: number; max?: number; unique?: boolean } = {},
): T[] | undefined {
  const { min = 0, max = 1000, unique = true } = options;
  if (!Array.isArray(value)) {
    problems.add(path, `must be an array, got ${describe(value)}`);
    return undefined;
  }
  let ok = true;
  if (value.length < min || value.length > max) {
    problems.add(path, min > 0 && value.length === 0 ? 'must not be empty' : `must hold ${min} to ${max} entries`);
    ok = false;
  }
  const out: T[] = [];
  value.forEach((entry, index) => {
    const read = item(joinPath(path, index), entry);
    if (read === undefined) {
      ok = false;
      return;
    }
    if (unique && out.some((seen) => JSON.stringify(seen) === JSON.stringify(read))) {
      problems.add(joinPath(path, index), `duplicate entry ${JSON.stringify(read)}`);
      ok = false;
      return;
    }
    out.push(read);
  });
  return ok ? out : undefined;
}
