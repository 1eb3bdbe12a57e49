// Checking a real answer against the OpenAPI document: the path template (`/admin/applications/{clientId}`),
// method, status and content type must be documented, and the body must pass the compiled TypeBox schema
// the document's `$ref` names (the very schema the document was generated from, src/admin/openapi.ts).
import { openApiSchemas, RetryAfterSchema, WwwAuthenticateSchema } from '../../src/admin/openapi.js';
import { compile, type TSchema, type Validator } from '../../src/schemas/typebox.js';

export interface ResponseToCheck {
  readonly path: string;
  readonly method: string;
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
  readonly headers?: Readonly<Record<string, string | null | undefined>>;
}

type Schemas = Readonly<Record<string, TSchema>>;
const DEFAULT_SCHEMAS = openApiSchemas();
/** The documented response headers' schemas (the document holds their JSON Schema). */
const HEADERS: Readonly<Record<string, TSchema>> = {
  'Retry-After': RetryAfterSchema,
  'WWW-Authenticate': WwwAuthenticateSchema,
};
const compiled = new Map<TSchema, Validator<unknown>>();

function validator(schema: TSchema): Validator<unknown> {
  let found = compiled.get(schema);
  if (found === undefined) compiled.set(schema, (found = compile(schema)));
  return found;
}

/** Every way `value` breaks the component `name` of `schemas`, as `<pointer>: <message>` lines. */
export function checkComponent(name: string, value: unknown, schemas: Schemas = DEFAULT_SCHEMAS): string[] {
  const schema = schemas[name];
  if (schema === undefined) return [`no component ${name}`];
  return validator(schema).explain(value);
}

/** The document's path template that matches a concrete path, or undefined. */
export function matchPath(document: Record<string, unknown>, path: string): string | undefined {
  const templates = Object.keys(document.paths as Record<string, unknown>);
  const segments = path.split('?', 1)[0]!.split('/');
  if (templates.includes(segments.join('/'))) return segments.join('/');
  return templates.find((template) => {
    const parts = template.split('/');
    return (
      parts.length === segments.length &&
      parts.every((part, i) => (part.startsWith('{') && part.endsWith('}') ? segments[i] !== '' : part === segments[i]))
    );
  });
}

interface Documented {
  readonly content?: Record<string, { schema: { $ref?: string; type?: string } }>;
  readonly headers?: Record<string, unknown>;
}

/** Every way a real response disagrees with the document (undocumented path/method/status/type, schema problems, headers). */
export function checkResponse(
  document: Record<string, unknown>,
  response: ResponseToCheck,
  schemas: Schemas = DEFAULT_SCHEMAS,
): string[] {
  const template = matchPath(document, response.path);
  if (!template) return [`${response.path}: not in the document`];
  const item = (document.paths as Record<string, Record<string, unknown>>)[template]!;
  const operation = item[response.method.toLowerCase()] as { responses?: Record<string, Documented> } | undefined;
  if (!operation) return [`${response.method} ${template}: method not in the document`];
  const documented = operation.responses?.[String(response.status)];
  if (!documented) return [`${response.method} ${template}: status ${response.status} not in the document`];
  const problems: string[] = [];
  for (const name of Object.keys(documented.headers ?? {})) {
    const value = response.headers?.[name.toLowerCase()];
    const schema = HEADERS[name];
    if (value === undefined || value === null)
      problems.push(`${response.method} ${template} ${response.status}: header ${name} missing`);
    else if (schema === undefined) problems.push(`header ${name}: no schema known to the lookup`);
    else
      problems.push(
        ...validator(schema)
          .explain(/^\d+$/.test(value) ? Number(value) : value)
          .map((p) => `header ${name} ${p}`),
      );
  }
  const mediaType = response.contentType.split(';', 1)[0]!.trim();
  const content = documented.content?.[mediaType];
  if (!content)
    return [
      ...problems,
      `${response.method} ${template} ${response.status}: content type ${mediaType} not in the document`,
    ];
  if (mediaType !== 'application/json') return problems;
  let value: unknown;
  try {
    value = JSON.parse(response.body);
  } catch {
    return [...problems, `${response.method} ${template} ${response.status}: body is not JSON`];
  }
  const ref = content.schema.$ref;
  if (ref === undefined) {
    // Only /openapi.json documents an inline schema: any JSON object.
    const isObject = typeof value === 'object' && value !== null && !Array.isArray(value);
    return content.schema.type === 'object' && isObject
      ? problems
      : [...problems, `${template}: an inline schema the lookup does not read`];
  }
  return [...problems, ...checkComponent(ref.replace('#/components/schemas/', ''), value, schemas)];
}
