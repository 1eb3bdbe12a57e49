// References and bodies shared by the admin paths of the OpenAPI document (openapi-admin.ts, openapi-webhooks.ts).

/** A reference to a component of the document (openapi.ts `openApiSchemas`). */
export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** A JSON request or answer body with `schema`. */
export function jsonContent(schema: Readonly<Record<string, unknown>>) {
  return { 'application/json': { schema } };
}
