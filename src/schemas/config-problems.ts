// The config file's words for a schema failure: the key's path as the operator writes it
// (`applications[1].origins[0]`) and what was expected, with what was given ("must be an integer from 0 to
// 65535, got number 70000"). Derived from the failing schema's own keywords, or its `detail` when they
// cannot say it, or its format's own sentence (formats.ts); a value whose schema is `wordedByLoader` is left to the loader's own check.
import { FORMATS } from './formats.js';
import type { Failure } from './typebox.js';

/** One problem of a configuration: where (`listen.port`, empty for the whole), and what. */
export interface ConfigProblem {
  readonly path: string;
  readonly message: string;
}

type Node = Readonly<Record<string, unknown>>;

/** A value in a message: `number 5`, `the string "x"` (cut at 60 characters), `an object`. */
export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string')
    return `the string ${JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value)}`;
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${String(value)}`;
}

/** One problem per key, the first failure's (a string too long is not also said to break its pattern). */
export function configProblems(failures: readonly Failure[], root: unknown): ConfigProblem[] {
  const found = new Map<string, string>();
  for (const [pointer, message] of failures.flatMap(wordsOf)) {
    const path = dotted(pointer, root);
    if (!found.has(path)) found.set(path, message);
  }
  return [...found].map(([path, message]) => ({ path, message }));
}

function wordsOf(failure: Failure): [string, string][] {
  const { pointer, schema, value } = failure;
  const said = (message: string): [string, string][] => [[pointer, message]];
  switch (failure.keyword) {
    case 'unknown':
      return said(`unknown key (known keys here: ${Object.keys(schema.properties as Node).join(', ')})`);
    case 'missing':
      return said(typeof schema.missing === 'string' ? schema.missing : expected(schema, undefined));
    case 'unique':
      // Duplicates are named entry by entry, once every entry is checked (src/config/checks.ts).
      return [];
    case 'union':
      return unionWords(failure);
  }
  if (schema.wordedByLoader === true) return [];
  if (failure.keyword === 'minLength' || failure.keyword === 'maxLength') {
    const text = value as string;
    const min = (schema.minLength as number | undefined) ?? 0;
    return said(
      min === 1 && text.length === 0
        ? 'must not be empty'
        : `must be ${min} to ${String(schema.maxLength)} characters long`,
    );
  }
  if (failure.keyword === 'pattern') {
    const hint = schema.patternDetail;
    if (typeof hint !== 'string' && typeof schema.detail === 'string') return said(expected(schema, value));
    return said(`${describe(value)} is not valid${typeof hint === 'string' ? `: ${hint}` : ''}`);
  }
  const format = failure.keyword === 'format' ? FORMATS[schema.format as string] : undefined;
  if (format !== undefined) return said(format(value as string) ?? expected(schema, value));
  if (failure.keyword === 'count') {
    const min = (schema.minItems as number | undefined) ?? 0;
    return said(
      min > 0 && (value as unknown[]).length === 0
        ? 'must not be empty'
        : `must hold ${min} to ${String(schema.maxItems)} entries`,
    );
  }
  return said(expected(schema, value));
}

/**
 * An object given where an object (or null) is expected: that object's own failures. Otherwise the union's
 * `detail`, its choices, or the words of its one variant besides null.
 */
function unionWords(failure: Failure): [string, string][] {
  const variants = (failure.schema.anyOf as Node[]) ?? [];
  const value = failure.value;
  const objectAt = variants.findIndex((variant) => variant.type === 'object');
  if (typeof value === 'object' && value !== null && !Array.isArray(value) && objectAt >= 0)
    return (failure.variants?.[objectAt] ?? []).flatMap(wordsOf);
  if (typeof failure.schema.detail === 'string' || choices(failure.schema).length > 0)
    return [[failure.pointer, expected(failure.schema, value)]];
  const others = variants.flatMap((variant, index) => (variant.type === 'null' ? [] : [index]));
  if (others.length === 1) return (failure.variants?.[others[0]!] ?? []).flatMap(wordsOf);
  return [[failure.pointer, `is not valid, got ${describe(value)}`]];
}

function expected(schema: Node, value: unknown): string {
  return `${sentence(schema)}, got ${describe(value)}`;
}

function sentence(schema: Node): string {
  if (typeof schema.detail === 'string') return schema.detail;
  const allowed = choices(schema);
  if (allowed.length > 0) return `must be one of ${allowed.map((c) => JSON.stringify(c)).join(', ')}`;
  switch (schema.type) {
    case 'object':
      return 'must be an object';
    case 'array':
      return 'must be an array';
    case 'boolean':
      return 'must be true or false';
    case 'integer':
      return `must be an integer from ${String(schema.minimum)} to ${String(schema.maximum)}`;
    case 'number':
      return `must be a number${schema.minimum === undefined ? '' : ` >= ${String(schema.minimum)}`}${schema.exclusiveMinimum === undefined ? '' : ` > ${String(schema.exclusiveMinimum)}`}`;
    default:
      return 'must be a string';
  }
}

/** The string constants a schema allows (its literals, in nested unions too; null aside). */
function choices(schema: Node): string[] {
  if (typeof schema.const === 'string') return [schema.const];
  return Array.isArray(schema.anyOf) ? (schema.anyOf as Node[]).flatMap(choices) : [];
}

/** `/applications/1/origins/0` → `applications[1].origins[0]`: an index where the value is a list. */
export function dotted(pointer: string, root: unknown): string {
  let path = '';
  let at: unknown = root;
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    path += Array.isArray(at) ? `[${key}]` : path === '' ? key : `.${key}`;
    at = typeof at === 'object' && at !== null ? (at as Record<string, unknown>)[key] : undefined;
  }
  return path;
}
