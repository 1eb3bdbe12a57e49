// The audit log: events, a store interface with a memory implementation, and the ceremony-outcome hook.
export type { AuditEvent, AuditResult, AuditDetails } from './types.js';
export { AuditLog } from './log.js';
export { createAuditHooks, actionOf } from './hooks.js';
export type { AuditHooksOptions } from './hooks.js';
export { toJsonLines, createAuditIdSource, auditEvent } from './events.js';
export type { AuditFacts } from './events.js';
