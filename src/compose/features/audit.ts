// The audit log (docs/operations.md "Audit log"): every ceremony's outcome (hooks) and every admin change,
// kept in the audit store (bounded by `audit.maxEvents` in memory), read by /admin/audit and its export.
import { createAuditHooks } from '../../audit/hooks.js';
import { AuditLog } from '../../audit/log.js';
import { storeCheck } from '../../runtime/readiness.js';
import type { OperatorFeature } from '../feature-types.js';

export const auditFeature: OperatorFeature = {
  name: 'audit',
  configKeys: ['audit'],
  routes: ['/admin/audit', '/admin/audit/export'],
  stores: ['audit'],
  provides: ['audit'],
  setup(context) {
    const { input, stores } = context;
    const audit = new AuditLog(stores.audit, input.runtime, input.log);
    context.provide('audit', audit);
    return {
      hooks: [createAuditHooks(audit, { options: input.options.audit.options })],
      readiness: [storeCheck('audit', stores.audit)],
      closers: [{ name: 'audit', close: () => stores.audit.close() }],
    };
  },
};
