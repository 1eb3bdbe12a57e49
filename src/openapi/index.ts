// The OpenAPI 3.1 document and the small schema checker that keeps it true.
export { openApiDocument } from './document.js';
export type { DocumentOptions } from './document.js';
export { checkSchema, resolveRef } from './check.js';
export type { Schema, CheckContext } from './check.js';
export { checkResponse, matchPath } from './lookup.js';
export type { ResponseToCheck } from './lookup.js';
