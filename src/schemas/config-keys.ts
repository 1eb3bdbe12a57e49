// The builders of the config file's keys (src/schemas/config.ts, config-ops.ts): each key's type and bounds
// with its notes (default, meaning, overriding variable).
import { type TProperties, Type } from './typebox.js';

/** Our keywords and JSON Schema's annotations, as a key's entry gives them. */
export interface Notes {
  readonly description?: string;
  readonly default?: unknown;
  readonly env?: string;
  readonly defaultText?: string;
  readonly detail?: string;
  readonly pattern?: string;
  /** A format of formats.ts: what no pattern says in the operator's words. */
  readonly format?: string;
  readonly patternDetail?: string;
  readonly missing?: string;
  readonly wordedByLoader?: boolean;
}

export const opt = Type.Optional;
/** The largest port: the one port bound (0 asks the system for any free port). */
export const PORT_MAX = 65_535;
export const port = (notes: Notes) => Type.Integer({ minimum: 0, maximum: PORT_MAX, ...notes });
export const integer = (minimum: number, maximum: number, notes: Notes) => Type.Integer({ minimum, maximum, ...notes });
export const text = (minLength: number, maxLength: number | undefined, notes: Notes) =>
  Type.String({ minLength, ...(maxLength === undefined ? {} : { maxLength }), ...notes });
export const host = (notes: Notes) => text(1, 253, notes);
export const path = (notes: Notes) => text(1, 4096, notes);
/** An object of the file: unknown keys refused, present with its keys' defaults when left out. */
export const section = <T extends TProperties>(properties: T, notes: Notes) =>
  Type.Object(properties, { additionalProperties: false, default: {}, ...notes });
