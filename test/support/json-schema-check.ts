// A small JSON Schema checker (the subset of JSON Schema 2020-12 that src/admin/openapi.ts uses: type,
// properties, required, additionalProperties, items, prefixItems, enum, const, oneOf, anyOf, allOf, $ref
// to the document's components, string length and pattern, number bounds, array bounds, format date-time).
// No dependency: enough to keep the OpenAPI document true by checking real responses against it.

export type Schema = { readonly [key: string]: unknown } | boolean;

export interface CheckContext {
  /** The whole OpenAPI document, for `#/...` references. */
  readonly root: unknown;
}

const SUPPORTED = new Set([
  'type', 'properties', 'required', 'additionalProperties', 'items', 'prefixItems', 'enum', 'const', 'oneOf', 'anyOf',
  'allOf', '$ref', 'minLength', 'maxLength', 'pattern', 'minimum', 'maximum', 'minItems', 'maxItems', 'format',
  'description', 'title', 'examples', 'default', 'deprecated', 'readOnly', 'writeOnly', 'minProperties',
]);

/** Every way `value` breaks `schema`, as `path: problem` lines; empty when it conforms. */
export function checkSchema(schema: Schema, value: unknown, context: CheckContext, path = '$'): string[] {
  if (schema === true) return [];
  if (schema === false) return [`${path}: no value is allowed here`];
  for (const key of Object.keys(schema)) {
    if (!SUPPORTED.has(key)) return [`${path}: the checker does not support the keyword "${key}"`];
  }
  const problems: string[] = [];
  const s = schema as Record<string, unknown>;

  if (typeof s.$ref === 'string') problems.push(...checkSchema(resolveRef(s.$ref, context), value, context, path));
  if (s.type !== undefined) {
    const types = Array.isArray(s.type) ? (s.type as string[]) : [s.type as string];
    if (!types.some((t) => hasType(value, t))) return [...problems, `${path}: expected ${types.join(' or ')}, got ${describe(value)}`];
  }
  if (s.const !== undefined && !deepEqual(value, s.const)) problems.push(`${path}: expected ${JSON.stringify(s.const)}, got ${JSON.stringify(value)}`);
  if (Array.isArray(s.enum) && !s.enum.some((e) => deepEqual(e, value))) problems.push(`${path}: ${JSON.stringify(value)} is not one of ${JSON.stringify(s.enum)}`);

  if (typeof value === 'string') {
    const length = [...value].length;
    if (typeof s.minLength === 'number' && length < s.minLength) problems.push(`${path}: shorter than ${s.minLength}`);
    if (typeof s.maxLength === 'number' && length > s.maxLength) problems.push(`${path}: longer than ${s.maxLength}`);
    if (typeof s.pattern === 'string' && !new RegExp(s.pattern, 'u').test(value)) problems.push(`${path}: does not match ${s.pattern}`);
    if (s.format === 'date-time' && !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(value)) problems.push(`${path}: not an RFC 3339 date-time`);
  }
  if (typeof value === 'number') {
    if (typeof s.minimum === 'number' && value < s.minimum) problems.push(`${path}: below ${s.minimum}`);
    if (typeof s.maximum === 'number' && value > s.maximum) problems.push(`${path}: above ${s.maximum}`);
  }
  if (Array.isArray(value)) {
    if (typeof s.minItems === 'number' && value.length < s.minItems) problems.push(`${path}: fewer than ${s.minItems} items`);
    if (typeof s.maxItems === 'number' && value.length > s.maxItems) problems.push(`${path}: more than ${s.maxItems} items`);
    const prefix = Array.isArray(s.prefixItems) ? (s.prefixItems as Schema[]) : [];
    value.forEach((item, i) => {
      const itemSchema = i < prefix.length ? prefix[i] : (s.items as Schema | undefined);
      if (itemSchema !== undefined) problems.push(...checkSchema(itemSchema, item, context, `${path}[${i}]`));
    });
  }
  if (isObject(value)) {
    const properties = (s.properties ?? {}) as Record<string, Schema>;
    for (const name of (s.required ?? []) as string[]) {
      if (!Object.hasOwn(value, name)) problems.push(`${path}: missing required property "${name}"`);
    }
    if (typeof s.minProperties === 'number' && Object.keys(value).length < s.minProperties) problems.push(`${path}: fewer than ${s.minProperties} properties`);
    for (const [name, item] of Object.entries(value)) {
      const where = `${path}.${name}`;
      if (Object.hasOwn(properties, name)) problems.push(...checkSchema(properties[name]!, item, context, where));
      else if (s.additionalProperties === false) problems.push(`${where}: property not allowed`);
      else if (isObject(s.additionalProperties)) problems.push(...checkSchema(s.additionalProperties as Schema, item, context, where));
    }
  }
  if (Array.isArray(s.allOf)) for (const sub of s.allOf as Schema[]) problems.push(...checkSchema(sub, value, context, path));
  if (Array.isArray(s.anyOf) && !(s.anyOf as Schema[]).some((sub) => checkSchema(sub, value, context, path).length === 0)) {
    problems.push(`${path}: matches none of anyOf`);
  }
  if (Array.isArray(s.oneOf)) {
    const matching = (s.oneOf as Schema[]).filter((sub) => checkSchema(sub, value, context, path).length === 0).length;
    if (matching !== 1) problems.push(`${path}: matches ${matching} of oneOf (exactly one required)`);
  }
  return problems;
}

export function resolveRef(ref: string, context: CheckContext): Schema {
  if (!ref.startsWith('#/')) throw new Error(`only local references are supported: ${ref}`);
  let node: unknown = context.root;
  for (const raw of ref.slice(2).split('/')) {
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isObject(node) || !Object.hasOwn(node, part)) throw new Error(`unresolvable reference ${ref}`);
    node = node[part];
  }
  return node as Schema;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function hasType(value: unknown, type: string): boolean {
  switch (type) {
    case 'null': return value === null;
    case 'boolean': return typeof value === 'boolean';
    case 'string': return typeof value === 'string';
    case 'number': return typeof value === 'number' && Number.isFinite(value);
    case 'integer': return Number.isInteger(value);
    case 'array': return Array.isArray(value);
    case 'object': return isObject(value);
    default: throw new Error(`unknown JSON Schema type ${type}`);
  }
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => deepEqual(a[k], b[k]));
  }
  return false;
}
