// The sentence for a schema failure, e.g. "response.clientDataJSON must be a non-empty base64url string":
// derived from the failing schema's own keywords, or its `detail` when the keywords cannot say it well.
// Works on plain JSON Schema objects, so it knows nothing of the library that found the failure.

/** Where a value first breaks its schema, in words an integrator can act on. */
export interface SchemaFailure {
  /** `response.clientDataJSON`, `response.transports[3]`; empty for the value itself. */
  readonly path: string;
  /** The sentence without the path, e.g. `must be a non-empty base64url string`. */
  readonly problem: string;
}

/**
 * The failures whose sentence names a bound, and a pattern failure (which reads `patternDetail` when the
 * schema has one); every other failure reads the same, whatever the keyword.
 */
export type FailureKind = 'maxLength' | 'maxItems' | 'pattern' | 'other';

type Node = Readonly<Record<string, unknown>>;

export function describeFailure(schema: Node, pointer: string, kind: FailureKind): SchemaFailure {
  return { path: dotted(pointer), problem: problemOf(schema, kind) };
}

/** `/response/transports/3` → `response.transports[3]` (JSON Pointer, RFC 6901). */
export function dotted(pointer: string): string {
  let path = '';
  for (const raw of pointer.split('/').slice(1)) {
    const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    path += /^\d+$/.test(segment) ? `[${segment}]` : path === '' ? segment : `.${segment}`;
  }
  return path;
}

function problemOf(schema: Node, kind: FailureKind): string {
  if (kind === 'maxLength') return `must be at most ${String(schema.maxLength)} characters`;
  if (kind === 'maxItems') return `must hold at most ${String(schema.maxItems)} items`;
  if (kind === 'pattern' && typeof schema.patternDetail === 'string') return schema.patternDetail;
  if (typeof schema.detail === 'string') return schema.detail;
  const choices = constants(schema);
  if (choices !== undefined)
    return choices.length === 1
      ? `must be the string "${choices[0]}"`
      : `must be one of ${choices.map((c) => `"${c}"`).join(', ')}`;
  switch (schema.type) {
    case 'object':
      return 'must be an object';
    case 'array':
      return 'must be an array';
    case 'boolean':
      return 'must be a boolean';
    case 'integer':
      return 'must be an integer';
    case 'number':
      return 'must be a number';
    case 'null':
      return 'must be null';
    case 'string':
      return typeof schema.minLength === 'number' && schema.minLength > 0
        ? 'must be a non-empty string'
        : 'must be a string';
    default:
      return 'is not valid here';
  }
}

/** The allowed strings of a `const` or an `anyOf` of string constants (TypeBox's literal unions). */
function constants(schema: Node): string[] | undefined {
  if (typeof schema.const === 'string') return [schema.const];
  const variants = schema.anyOf;
  if (!Array.isArray(variants) || variants.length === 0) return undefined;
  const values = variants.map((v: Node) => v.const);
  return values.every((v): v is string => typeof v === 'string') ? values : undefined;
}
