import type { OperatorChangeApplied } from '../phone-change/phone-change-apply.js';
import { AuditAction } from '../audit/audit-action.js';
import type { AuditLogService } from '../audit/audit-log.service.js';

/**
 * The audit entry of an operator's phone change that applied after its wait: PHONE_CHANGED, with
 * the operator who asked for it as the actor, written in the apply's transaction (by the job, so
 * with no address, user agent or request id).
 */
export function auditOperatorPhoneChange(audit: AuditLogService): (applied: OperatorChangeApplied) => Promise<void> {
  return ({ changeId, userId, operatorId, from, to }) =>
    audit.record({ action: AuditAction.PHONE_CHANGED, actorId: operatorId, targetUserId: userId, detail: { phoneChangeId: changeId, from, to }, client: {} });
}
