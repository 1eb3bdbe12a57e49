// docs/configuration.md's tables of keys, defaults and environment variables, written from the schema
// (scripts/gen-config-schema.mjs puts them between the doc's `<!-- generated: name -->` markers, and
// test/schemas/config-docs.test.ts fails when the doc and the schema differ).
import { ConfigFileSchema } from './config.js';
import { ENV_OVERRIDES, EnvironmentSchema, TracingEnvironmentSchema } from './environment.js';

type Node = Readonly<Record<string, unknown>>;
const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const code = (value: unknown) => `\`${JSON.stringify(value)}\``;

/** The tables by marker name: `keys`, `application-keys`, `env-overrides`, `env-settings`, `env-tracing`. */
export function configDocTables(): Readonly<Record<string, string>> {
  const top = ConfigFileSchema.properties as Record<string, Node>;
  const head = ['Key', 'Type', 'Default', 'Meaning'];
  return {
    keys: table(head, rows(top, '')),
    'application-keys': table(
      head,
      rows(((top.applications as Node).items as Node).properties as Record<string, Node>, ''),
    ),
    'env-overrides': table(
      ['Variable', 'Setting'],
      ENV_OVERRIDES.map((o) => [`\`${o.name}\``, `\`${o.key.join('.')}\``]),
    ),
    'env-settings': variables(EnvironmentSchema.properties),
    'env-tracing': variables(TracingEnvironmentSchema.properties),
  };
}

function variables(properties: object): string {
  const list = Object.entries(properties as Record<string, Node>);
  return table(
    ['Variable', 'Meaning'],
    list.map(([name, schema]) => [`\`${name}\``, String(schema.description)]),
  );
}

/** A row per key, and after a section (an object of keys) a row per key of it: `admin.port`. */
function rows(properties: Record<string, Node>, prefix: string): string[][] {
  return Object.entries(properties).flatMap(([key, schema]) => {
    const row = [`\`${prefix}${key}\``, typeOf(schema), defaultOf(schema), String(schema.description ?? '')];
    return isSection(schema) ? [row, ...rows(schema.properties as Record<string, Node>, `${prefix}${key}.`)] : [row];
  });
}

const isSection = (schema: Node) => schema.type === 'object' && schema.properties !== undefined;

function defaultOf(schema: Node): string {
  if (typeof schema.defaultText === 'string') return schema.defaultText;
  if (isSection(schema)) return 'see below';
  return schema.default === undefined ? '—' : code(schema.default);
}

/** `integer 0–65535`, `"allow"`, `"deny"`, `array of origins`, `{burst, perSecond} or null`. */
function typeOf(schema: Node): string {
  const literals = constants(schema);
  if (literals.length > 0) return [...literals.map((l) => code(l)), ...(nullable(schema) ? ['`null`'] : [])].join(', ');
  if (Array.isArray(schema.anyOf)) {
    const [other] = (schema.anyOf as Node[]).filter((variant) => variant.type !== 'null');
    return `${typeOf(other ?? {})} or \`null\``;
  }
  switch (schema.type) {
    case 'integer':
      return schema.minimum === undefined ? 'integer' : `integer ${String(schema.minimum)}–${String(schema.maximum)}`;
    case 'number':
      return 'number';
    case 'array':
      return isSection(schema.items as Node) ? 'array of objects' : `array of ${plural(typeOf(schema.items as Node))}`;
    case 'object':
      return schema.patternProperties !== undefined
        ? `object of name → ${typeOf(Object.values(schema.patternProperties as Node)[0] as Node)}`
        : schema.properties === undefined
          ? 'object'
          : `object \`{${Object.keys(schema.properties as Node).join(', ')}}\``;
    default:
      return String(schema.type ?? 'any');
  }
}

const plural = (type: string) => (type.endsWith('`null`') ? type : type.replace(/^(string|integer)\b/, '$1s'));

function constants(schema: Node): string[] {
  if (typeof schema.const === 'string') return [schema.const];
  return Array.isArray(schema.anyOf) ? (schema.anyOf as Node[]).flatMap(constants) : [];
}

const nullable = (schema: Node) =>
  Array.isArray(schema.anyOf) && (schema.anyOf as Node[]).some((v) => v.type === 'null');

function table(head: string[], body: string[][]): string {
  return [
    `| ${head.join(' | ')} |`,
    `|${head.map(() => '---').join('|')}|`,
    ...body.map((r) => `| ${r.map(cell).join(' | ')} |`),
  ].join('\n');
}

/** `doc` with each `<!-- generated: name -->` … `<!-- end generated -->` region holding its table. */
export function withConfigTables(doc: string): string {
  let out = doc;
  for (const [name, body] of Object.entries(configDocTables())) {
    const open = `<!-- generated: ${name} (scripts/gen-config-schema.mjs) -->`;
    const from = out.indexOf(open);
    const to = out.indexOf('<!-- end generated -->', from);
    if (from < 0 || to < 0) throw new Error(`docs/configuration.md has no region ${open}`);
    out = `${out.slice(0, from + open.length)}\n${body}\n${out.slice(to)}`;
  }
  return out;
}
