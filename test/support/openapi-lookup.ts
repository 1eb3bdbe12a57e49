// Finding the schema a response must follow: path template matching (`/admin/applications/{clientId}`),
// method, status and content type, straight from the document.
import { checkSchema, type Schema } from './json-schema-check.js';

export interface ResponseToCheck {
  readonly path: string;
  readonly method: string;
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
  readonly headers?: Readonly<Record<string, string | null | undefined>>;
}

/** The document's path template that matches a concrete path, or undefined. */
export function matchPath(document: Record<string, unknown>, path: string): string | undefined {
  const templates = Object.keys(document.paths as Record<string, unknown>);
  const segments = path.split('?', 1)[0]!.split('/');
  if (templates.includes(segments.join('/'))) return segments.join('/');
  return templates.find((template) => {
    const parts = template.split('/');
    return parts.length === segments.length && parts.every((part, i) => (part.startsWith('{') && part.endsWith('}') ? segments[i] !== '' : part === segments[i]));
  });
}

/** Every way a real response disagrees with the document (undocumented path/method/status/type, schema problems, headers). */
export function checkResponse(document: Record<string, unknown>, response: ResponseToCheck): string[] {
  const template = matchPath(document, response.path);
  if (!template) return [`${response.path}: not in the document`];
  const item = (document.paths as Record<string, Record<string, unknown>>)[template]!;
  const operation = item[response.method.toLowerCase()] as { responses?: Record<string, { content?: Record<string, { schema: Schema }>; headers?: Record<string, { schema: Schema }> }> } | undefined;
  if (!operation) return [`${response.method} ${template}: method not in the document`];
  const documented = operation.responses?.[String(response.status)];
  if (!documented) return [`${response.method} ${template}: status ${response.status} not in the document`];
  const problems: string[] = [];
  for (const [name, header] of Object.entries(documented.headers ?? {})) {
    const value = response.headers?.[name.toLowerCase()];
    if (value === undefined || value === null) problems.push(`${response.method} ${template} ${response.status}: header ${name} missing`);
    else problems.push(...checkSchema(header.schema, /^\d+$/.test(value) ? Number(value) : value, { root: document }, `header ${name}`));
  }
  const mediaType = response.contentType.split(';', 1)[0]!.trim();
  const content = documented.content?.[mediaType];
  if (!content) return [...problems, `${response.method} ${template} ${response.status}: content type ${mediaType} not in the document`];
  if (mediaType !== 'application/json') return problems;
  let value: unknown;
  try {
    value = JSON.parse(response.body);
  } catch {
    return [...problems, `${response.method} ${template} ${response.status}: body is not JSON`];
  }
  return [...problems, ...checkSchema(content.schema, value, { root: document })];
}
