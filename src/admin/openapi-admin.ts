// The admin listener's paths in the OpenAPI document, generated from its route table (routes.ts): each
// route's method, path, parameters, body and answers; their schemas are the components the table names
// (ADMIN_COMPONENTS), which openapi.ts joins with the four operations'.
import { ADMIN_ROUTES, type Route } from './routes.js';

/** A reference to a component of the document (openapi.ts `openApiSchemas`). */
export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** A JSON request or answer body with `schema`. */
export function jsonContent(schema: Readonly<Record<string, unknown>>) {
  return { 'application/json': { schema } };
}

const ok = (route: Route) => {
  const { answer } = route;
  if (typeof answer === 'string') return { description: 'OK', content: jsonContent(ref(answer)) };
  const schema = answer.contentType === 'application/json' ? { type: 'object' } : { type: 'string' };
  return { description: answer.description, content: { [answer.contentType]: { schema } } };
};

/** A body read as a stream: any of its media types, bytes. */
const streamedBody = (streamed: NonNullable<Route['streamed']>) => ({
  required: true,
  description: streamed.description,
  content: Object.fromEntries(
    streamed.contentTypes.map((type) => [type, { schema: { type: 'string', format: 'binary' } }]),
  ),
});

function operation(route: Route) {
  const pathParameters = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => ({
    name: m[1],
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));
  const parameters = [...pathParameters, ...(route.query ?? []).map((p) => ({ ...p, in: 'query' }))];
  const alternative = route.alternative;
  return {
    ...(route.open ? { tags: ['operations'] } : { security: [{ adminToken: [] }], tags: ['admin'] }),
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(route.body ? { requestBody: { required: true, content: jsonContent(ref(route.body)) } } : {}),
    ...(route.streamed ? { requestBody: streamedBody(route.streamed) } : {}),
    responses: {
      [String(route.status ?? 200)]: ok(route),
      ...(alternative
        ? {
            [String(alternative.status)]: {
              description: alternative.description,
              content: jsonContent(ref(alternative.answer)),
            },
          }
        : {}),
      ...Object.fromEntries(
        (route.failures ?? []).map((s) => [
          String(s),
          { description: 'Failure', content: jsonContent(ref('AdminError')) },
        ]),
      ),
    },
  };
}

/** The admin listener's paths: every route of the table, whether or not this instance serves it. */
export function adminPaths(): Record<string, Record<string, unknown>> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of ADMIN_ROUTES) {
    paths[route.path] ??= {};
    paths[route.path]![route.method.toLowerCase()] = operation(route);
  }
  return paths;
}
