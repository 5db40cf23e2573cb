import type { Database } from '../../db/database.js';
import type { AuditAction } from './audit-action.js';
import { AuditEntry } from './audit-entry.entity.js';

export interface NewAuditEntry {
  actorId: string | null;
  action: AuditAction;
  targetUserId: string | null;
  detail: Record<string, unknown>;
  ip: string | null;
  userAgent: string | null;
  requestId: string | null;
}

/** The `audit_log` table: appended to, read page by page, swept by age; never updated. */
export class AuditLogRepository {
  private readonly insert: string;

  constructor(private readonly db: Database) {
    const a = db.names(AuditEntry);
    const columns = [a.actorId, a.action, a.targetUserId, a.detail, a.ip, a.userAgent, a.requestId];
    this.insert = `insert into ${a.table} (${columns.join(', ')}) values (${columns.map((_, i) => `$${i + 1}`).join(', ')}) returning ${a.id} as id`;
  }

  /** Inside the caller's transaction: the entry commits with the action it records, or not at all. */
  /** The new entry's id. */
  async append(entry: NewAuditEntry): Promise<string> {
    const { actorId, action, targetUserId, detail, ip, userAgent, requestId } = entry;
    const row = await this.db.one<{ id: string }>(this.insert, [actorId, action, targetUserId, JSON.stringify(detail), ip, userAgent, requestId], 'audit_log_insert');
    return String(row!.id);
  }

  findById(id: string): Promise<AuditEntry | null> {
    return this.db.em().findOne(AuditEntry, { id });
  }

  /** Entries older than `beforeId` (all when absent), newest first, at most `limit`. */
  list(beforeId: string | undefined, limit: number): Promise<AuditEntry[]> {
    return this.db.em().find(AuditEntry, beforeId ? { id: { $lt: beforeId } } : {}, { orderBy: { id: 'desc' }, limit });
  }

  /** The retention sweep: the one delete the table's trigger lets through, as it names itself. */
  deleteOlderThan(date: Date): Promise<number> {
    return this.db.retentionSweep(() => this.db.em().nativeDelete(AuditEntry, { at: { $lt: date } }));
  }
}
