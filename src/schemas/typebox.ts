// The one file that imports TypeBox: schema builders, compiled validators and plain JSON Schema for the
// OpenAPI document. Everything else in src/ builds and checks shapes through this file.

import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { ValueErrorType } from '@sinclair/typebox/errors';
import { describeFailure, type FailureKind, type SchemaFailure } from './details.js';

export { Type };
export type { Static, TSchema, SchemaFailure };

export interface Validator<T> {
  check(value: unknown): value is T;
  /** undefined when the value conforms. Only called after `check` failed: it walks the schema again. */
  firstFailure(value: unknown): SchemaFailure | undefined;
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
  };
}

/** The schema as plain JSON Schema 2020-12 (TypeBox's own symbol-keyed marks dropped). */
export function jsonSchema(schema: TSchema): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
}

function kindOf(type: ValueErrorType): FailureKind {
  if (type === ValueErrorType.StringMaxLength) return 'maxLength';
  if (type === ValueErrorType.ArrayMaxItems) return 'maxItems';
  if (type === ValueErrorType.StringPattern) return 'pattern';
  return 'other';
}
