// What one request of the field sweep changed in the service's database, read before and after it:
// the row count of every table of the service's schema, what the webhook outbox and the audit log
// hold, and the account columns operators change (role, block, nickname); and the rows it wrote, so
// that the ids they name can be checked for their canonical spelling. Columns that move on their own
// (a session's lastUsedAt, a delivery's attempts) are left out.
import pg from 'pg';

export interface Snapshot {
  counts: Record<string, number>;
  /** Digests of what the outbox rows say (not how far their delivery got) and of the audit log. */
  outbox: string;
  audit: string;
  /** Per account id: a digest of its role, blocked_at, blocked_reason and nickname. */
  accounts: Record<string, string>;
  /** The newest audit entry, security event and outbox row. */
  last: { audit: string; events: string; outbox: string };
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

/** The UUIDs in `text` that are not spelled in lower case. */
export function nonCanonicalIds(text: string): string[] {
  return [...new Set(text.match(UUID) ?? [])].filter((id) => id !== id.toLowerCase());
}

export class StateProbe {
  private constructor(
    private readonly db: pg.Client,
    private readonly query: string,
    readonly tables: string[],
  ) {}

  /** Connects to the service's database and reads which tables its schema has. */
  static async open(connectionString: string): Promise<StateProbe> {
    const db = new pg.Client({ connectionString });
    await db.connect();
    const { rows } = await db.query<{ name: string }>(
      `select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where c.relkind in ('r', 'p') and n.nspname = current_schema() order by 1`,
    );
    const tables = rows.map((r) => r.name);
    // json_build_object takes at most 100 arguments: the counts go in groups.
    const groups: string[] = [];
    for (let i = 0; i < tables.length; i += 40) {
      groups.push(`jsonb_build_object(${tables.slice(i, i + 40).map((t) => `'${t}', (select count(*) from "${t}")`).join(', ')})`);
    }
    const query = `select ${groups.join(' || ')} as counts,
      (select md5(coalesce(string_agg(concat_ws('|', id, event_type, user_key, payload::text, url), ',' order by seq), '')) from webhook_deliveries) as outbox,
      (select md5(coalesce(string_agg(concat_ws('|', id, actor_id, action, target_user_id, detail::text), ',' order by id), '')) from audit_log) as audit,
      (select coalesce(json_object_agg(id, md5(concat_ws('|', role, blocked_at, blocked_reason, nickname))), '{}') from users) as accounts,
      (select coalesce(max(id), 0)::text from audit_log) as last_audit,
      (select coalesce(max(id), 0)::text from security_events) as last_events,
      (select coalesce(max(seq), 0)::text from webhook_deliveries) as last_outbox`;
    return new StateProbe(db, query, tables);
  }

  async snapshot(): Promise<Snapshot> {
    const { rows } = await this.db.query(this.query);
    const r = rows[0]!;
    return {
      counts: Object.fromEntries(Object.entries(r.counts as Record<string, string | number>).map(([k, v]) => [k, Number(v)])),
      outbox: r.outbox,
      audit: r.audit,
      accounts: r.accounts,
      last: { audit: r.last_audit, events: r.last_events, outbox: r.last_outbox },
    };
  }

  /** What differs between two snapshots, in words (nothing: an empty list), but the row counts `tolerated` allows. */
  async changes(before: Snapshot, after: Snapshot, tolerated: (table: string, from: number, to: number) => boolean = () => false): Promise<string[]> {
    const out: string[] = [];
    for (const table of new Set([...Object.keys(before.counts), ...Object.keys(after.counts)])) {
      const [a, b] = [before.counts[table] ?? 0, after.counts[table] ?? 0];
      if (a !== b && !tolerated(table, a, b)) out.push(`${table}: ${a} -> ${b} rows`);
    }
    if (before.audit !== after.audit) {
      const { rows } = await this.db.query(`select action, target_user_id, detail::text as detail from audit_log where id > $1 order by id`, [before.last.audit]);
      out.push(`audit log: ${rows.map((e) => `${e.action} ${e.target_user_id ?? ''} ${e.detail}`).join('; ') || 'an entry changed'}`);
    }
    if (before.outbox !== after.outbox) {
      const { rows } = await this.db.query(`select event_type, payload::text as payload from webhook_deliveries where seq > $1 order by seq`, [before.last.outbox]);
      out.push(`webhook outbox: ${rows.map((d) => `${d.event_type} ${d.payload}`).join('; ') || 'a row changed or went'}`);
    }
    const changed = Object.keys({ ...before.accounts, ...after.accounts }).filter((id) => before.accounts[id] !== after.accounts[id]);
    if (changed.length > 0) {
      const { rows } = await this.db.query(`select id, role, blocked_at is not null as blocked, blocked_reason, nickname from users where id = any($1::uuid[])`, [changed]);
      out.push(`accounts changed: ${changed.map((id) => JSON.stringify(rows.find((u) => u.id === id) ?? { id, gone: true })).join('; ')}`);
    }
    return out;
  }

  /** The audit entries, security events and outbox rows written between two snapshots, as JSON texts. */
  async written(before: Snapshot, after: Snapshot): Promise<string[]> {
    if (before.last.audit === after.last.audit && before.last.events === after.last.events && before.last.outbox === after.last.outbox) return [];
    const { rows } = await this.db.query<{ row: string }>(
      `select 'audit_log ' || row_to_json(a)::text as row from audit_log a where id > $1
       union all select 'security_events ' || row_to_json(e)::text from security_events e where id > $2
       union all select 'webhook_deliveries ' || json_build_object('event_type', event_type, 'user_key', user_key, 'payload', payload)::text
         from webhook_deliveries where seq > $3`,
      [before.last.audit, before.last.events, before.last.outbox],
    );
    return rows.map((r) => r.row);
  }

  close(): Promise<void> {
    return this.db.end();
  }
}
