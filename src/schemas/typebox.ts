// The one file that imports TypeBox: schema builders, compiled validators and plain JSON Schema for the
// OpenAPI document. Everything else in src/ builds and checks shapes through this file.

import { FormatRegistry, Type, type Static, type TProperties, type TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { type ValueError, ValueErrorType } from '@sinclair/typebox/errors';
import { Value } from '@sinclair/typebox/value';
import { describeFailure, type FailureKind, type SchemaFailure } from './details.js';
import { FORMATS } from './formats.js';

export { Type };
export type { Static, TProperties, TSchema, SchemaFailure };

/** What a schema describes, every member read-only: the type the code hands around. */
export type Shape<T extends TSchema> = DeepReadonly<Static<T>>;
type DeepReadonly<T> = T extends (infer E)[]
  ? readonly DeepReadonly<E>[]
  : T extends object
    ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
    : T;

// TypeBox refuses a string whose `format` it does not know; the answers' times are RFC 3339 date-times.
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/;
if (!FormatRegistry.Has('date-time'))
  FormatRegistry.Set('date-time', (value) => DATE_TIME.test(value) && !Number.isNaN(Date.parse(value)));
// The config file's formats (formats.ts): well formed when the format finds no problem.
for (const [name, problem] of Object.entries(FORMATS))
  if (!FormatRegistry.Has(name)) FormatRegistry.Set(name, (value) => problem(value) === undefined);

export interface Validator<T> {
  check(value: unknown): value is T;
  /** undefined when the value conforms. Only called after `check` failed: it walks the schema again. */
  firstFailure(value: unknown): SchemaFailure | undefined;
  /** Every way the value breaks the schema, as `<JSON Pointer>: <TypeBox's message>` (for tests and tools). */
  explain(value: unknown): string[];
  /** Every way the value breaks the schema, each with the failing schema (config/problems.ts words them). */
  failures(value: unknown): Failure[];
}

/** One way a value breaks a schema: where (JSON Pointer), which keyword, the failing schema and value. */
export interface Failure {
  readonly pointer: string;
  readonly keyword: FailureKeyword;
  readonly schema: Readonly<Record<string, unknown>>;
  readonly value: unknown;
  /** A union's failure: each variant's own failures. */
  readonly variants?: readonly (readonly Failure[])[];
}
export type FailureKeyword =
  | 'type'
  | 'range'
  | 'minLength'
  | 'maxLength'
  | 'pattern'
  | 'format'
  | 'count'
  | 'unique'
  | 'unknown'
  | 'missing'
  | 'union';

const KEYWORDS: Partial<Record<ValueErrorType, FailureKeyword>> = {
  [ValueErrorType.IntegerMinimum]: 'range',
  [ValueErrorType.IntegerMaximum]: 'range',
  [ValueErrorType.NumberMinimum]: 'range',
  [ValueErrorType.NumberExclusiveMinimum]: 'range',
  [ValueErrorType.NumberMaximum]: 'range',
  [ValueErrorType.StringMinLength]: 'minLength',
  [ValueErrorType.StringMaxLength]: 'maxLength',
  [ValueErrorType.StringPattern]: 'pattern',
  [ValueErrorType.StringFormat]: 'format',
  [ValueErrorType.ArrayMinItems]: 'count',
  [ValueErrorType.ArrayMaxItems]: 'count',
  [ValueErrorType.ArrayUniqueItems]: 'unique',
  [ValueErrorType.ObjectAdditionalProperties]: 'unknown',
  [ValueErrorType.ObjectRequiredProperty]: 'missing',
  [ValueErrorType.Union]: 'union',
};

function failure(error: ValueError): Failure {
  const keyword = KEYWORDS[error.type] ?? 'type';
  return {
    pointer: error.path,
    keyword,
    schema: error.schema,
    value: error.value,
    ...(keyword === 'union' ? { variants: error.errors.map((variant) => [...variant].map(failure)) } : {}),
  };
}

/** A copy of `value` with the schema's `default`s filled in where a key is absent. */
export function withDefaults<T>(schema: TSchema, value: T): T {
  return Value.Default(schema, structuredClone(value)) as T;
}

/** Compiles a schema into a validator; do it once at start, never per request. */
export function compile<T extends TSchema>(schema: T): Validator<Static<T>> {
  const compiled: TypeCheck<T> = TypeCompiler.Compile(schema);
  return {
    check: (value: unknown): value is Static<T> => compiled.Check(value),
    firstFailure(value) {
      const error = compiled.Errors(value).First();
      return error === undefined ? undefined : describeFailure(error.schema, error.path, kindOf(error.type));
    },
    explain: (value) =>
      [...compiled.Errors(value)].map((error) => `${error.path === '' ? '/' : error.path}: ${error.message}`),
    failures: (value) => (compiled.Check(value) ? [] : [...compiled.Errors(value)].map(failure)),
  };
}

/**
 * The schema as plain JSON Schema 2020-12: TypeBox's own symbol-keyed marks and our sentence keywords
 * dropped, its tuples (draft-07 `items` arrays) written as `prefixItems`, and every schema found in
 * `shared` below the top written as a `$ref` to `#/components/schemas/<its name>` (the OpenAPI
 * document's components).
 */
export function jsonSchema(schema: TSchema, shared: ReadonlyMap<TSchema, string> = new Map()): Record<string, unknown> {
  return plain(schema, shared, true) as Record<string, unknown>;
}

/** Our own keywords for the sentences of a request's failure (details.ts): not JSON Schema, left out. */
const SENTENCES = new Set(['detail', 'patternDetail', 'env', 'missing', 'defaultText', 'wordedByLoader']);

function plain(node: unknown, shared: ReadonlyMap<TSchema, string>, top: boolean): unknown {
  if (Array.isArray(node)) return node.map((item) => plain(item, shared, false));
  if (typeof node !== 'object' || node === null) return node;
  if (!top) {
    const name = sharedName(node as TSchema, shared);
    if (name !== undefined) return { $ref: `#/components/schemas/${name}` };
  }
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (SENTENCES.has(key)) continue;
    // A map of names to schemas: its keys are names (a property may be called `detail`), its values schemas.
    out[key] =
      NAMED.has(key) && typeof value === 'object' && value !== null
        ? Object.fromEntries(Object.entries(value).map(([name, schema]) => [name, plain(schema, shared, false)]))
        : plain(value, shared, false);
  }
  if (out.type === 'array' && Array.isArray(out.items)) {
    out.prefixItems = out.items;
    out.items = false;
    delete out.additionalItems;
  }
  return out;
}
const NAMED = new Set(['properties', 'patternProperties', '$defs']);

/** A shared schema, or the copy of one that Type.Optional made (same properties object). */
function sharedName(node: TSchema, shared: ReadonlyMap<TSchema, string>): string | undefined {
  const exact = shared.get(node);
  if (exact !== undefined) return exact;
  if (node.properties === undefined) return undefined;
  for (const [schema, name] of shared) if (schema.properties === node.properties) return name;
  return undefined;
}

function kindOf(type: ValueErrorType): FailureKind {
  if (type === ValueErrorType.StringMaxLength) return 'maxLength';
  if (type === ValueErrorType.ArrayMaxItems) return 'maxItems';
  if (type === ValueErrorType.StringPattern) return 'pattern';
  return 'other';
}
