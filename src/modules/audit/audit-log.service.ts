import type { ClientInfo } from '../../shared/http/request-context.js';
import { bigintCursor, toPage, type Page, type Paged } from '../../shared/pagination.js';
import type { AuditAction } from './audit-action.js';
import type { AuditLogRepository } from './audit-log.repository.js';
import type { AuditEntry } from './audit-entry.entity.js';
import type { LivePublisher } from '../live/live-transport.js';

export const auditCursor = bigintCursor('audit');

export interface AuditEntryView {
  id: string;
  at: Date;
  /** null: the command-line tool. */
  actorId: string | null;
  action: AuditAction;
  targetUserId: string | null;
  /** The action's own fields, and where the operator acted from (`ip`, `userAgent`, `requestId`). */
  detail: Record<string, unknown>;
}

export interface AuditInput {
  action: AuditAction;
  /** The operator's account; null for the command-line tool. */
  actorId: string | null;
  targetUserId: string | null;
  detail?: Record<string, unknown>;
  client: ClientInfo;
}

const DAY_MS = 86400_000;

/** The operators' audit log: written by their actions, in the actions' transactions; read by ADMINs. */
export class AuditLogService {
  constructor(
    private readonly entries: AuditLogRepository,
    private readonly retentionDays: number,
    /** Live events: operators watching the log learn of each entry as it commits (API.md 10.2). */
    private readonly live: LivePublisher,
  ) {}

  async record({ action, actorId, targetUserId, detail = {}, client }: AuditInput): Promise<void> {
    const id = await this.entries.append({
      action,
      actorId,
      targetUserId,
      detail,
      ip: client.ip ?? null,
      userAgent: client.userAgent ?? null,
      requestId: client.requestId ?? null,
    });
    await this.live.publish({ k: 'audit', a: id, at: Date.now() });
  }

  /** One entry, as the log lists it; undefined when there is none. */
  async entry(id: string): Promise<AuditEntryView | undefined> {
    const row = await this.entries.findById(id);
    return row ? view(row) : undefined;
  }

  /** Newest first, a page at a time. */
  async list(page: Page<string>): Promise<Paged<AuditEntryView>> {
    const rows = await this.entries.list(page.after, page.limit + 1);
    return toPage(rows, page.limit, (row) => auditCursor.encode(row.id), view);
  }

  /** Entries older than the retention period. */
  async sweepExpired(): Promise<Record<string, number>> {
    return { auditLog: await this.entries.deleteOlderThan(new Date(Date.now() - this.retentionDays * DAY_MS)) };
  }
}

function view(row: AuditEntry): AuditEntryView {
  return { id: row.id, at: row.at, actorId: row.actorId, action: row.action, targetUserId: row.targetUserId, detail: { ...row.detail, ...where(row) } };
}

/** Where the operator acted from, as far as known. */
function where(row: { ip: string | null; userAgent: string | null; requestId: string | null }): Record<string, string> {
  return Object.fromEntries(Object.entries({ ip: row.ip, userAgent: row.userAgent, requestId: row.requestId }).filter(([, v]) => v !== null)) as Record<string, string>;
}
