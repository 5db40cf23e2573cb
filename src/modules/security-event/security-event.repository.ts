import type { Database } from '../../db/database.js';
import { SecurityEvent } from './security-event.entity.js';
import type { SecurityEventType, SignInMethod } from './security-event-type.js';

export interface NewSecurityEvent {
  type: SecurityEventType;
  method: SignInMethod | null;
  provider: string | null;
  userId: string | null;
  phoneMasked: string | null;
  ip: string | null;
  userAgent: string | null;
  sessionId: string | null;
  requestId: string | null;
}

/** The `security_events` table: appended to, read page by page, swept by age; never updated. */
export class SecurityEventRepository {
  private readonly insert: string;
  private readonly insertNotify: string;

  constructor(private readonly db: Database) {
    const e = db.names(SecurityEvent);
    const columns = [e.type, e.method, e.provider, e.user, e.phoneMasked, e.ip, e.userAgent, e.sessionId, e.requestId];
    // Prepared: every send-code and sign-in writes one (the EntityManager's insert cost 4x as much CPU).
    this.insert = `insert into ${e.table} (${columns.join(', ')}) values (${columns.map((_, i) => `$${i + 1}`).join(', ')})`;
    // The event and its live notice (NOTIFY, delivered when the transaction commits) in one round trip.
    this.insertNotify = `with e as (${this.insert} returning 1) select pg_notify($10, $11) from e`;
  }

  /** Inside the caller's transaction, when there is one: the event commits with the change it records. */
  async append(event: NewSecurityEvent, notify?: { channel: string; payload: string }): Promise<void> {
    const { type, method, provider, userId, phoneMasked, ip, userAgent, sessionId, requestId } = event;
    const values = [type, method, provider, userId, phoneMasked, ip, userAgent, sessionId, requestId];
    if (notify) await this.db.rows(this.insertNotify, [...values, notify.channel, notify.payload], 'security_event_insert_notify');
    else await this.db.rows(this.insert, values, 'security_event_insert');
  }

  /** The user's events older than `beforeId` (all when absent), newest first, at most `limit`. */
  listForUser(userId: string, beforeId: string | undefined, limit: number): Promise<SecurityEvent[]> {
    return this.db.em().find(
      SecurityEvent,
      { user: userId, ...(beforeId ? { id: { $lt: beforeId } } : {}) },
      { orderBy: { id: 'desc' }, limit },
    );
  }

  /** The retention sweep: the one delete the table's trigger lets through, as it names itself. */
  deleteOlderThan(date: Date): Promise<number> {
    return this.db.retentionSweep(() => this.db.em().nativeDelete(SecurityEvent, { at: { $lt: date } }));
  }
}
