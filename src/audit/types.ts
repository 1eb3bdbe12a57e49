// The audit log: who did what, when, with what result. Administrative changes (admin API and CLI) and
// ceremony outcomes are recorded. An event never holds a key, a challenge, a token or a request body:
// only names, identifiers and outcomes.

import type { AuditDetailsSchema, AuditEvent, AuditResultSchema } from '../schemas/admin.js';
import type { Shape, Static } from '../schemas/typebox.js';

export type AuditResult = Static<typeof AuditResultSchema>;

/** Identifiers and small facts; nothing secret. */
export type AuditDetails = Shape<typeof AuditDetailsSchema>;

/** One event (schemas/admin.ts `AuditEventSchema`, which the admin API's answers are checked against). */
export type { AuditEvent };
