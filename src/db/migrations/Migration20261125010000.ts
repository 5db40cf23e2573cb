import { Migration } from '@mikro-orm/migrations';

/**
 * Security events are append-only against DELETE too: only the retention sweep, which sets
 * `meeting_accounts.retention_sweep` for its own transaction, may delete (see the `SecurityEvent`
 * entity, whose trigger MikroORM derives this SQL from).
 */
export class Migration20261125010000 extends Migration {
  override up(): void {
    this.addSql(
      `create or replace function "security_events_security_events_no_delete_fn"() returns trigger as $$ begin ` +
        `if current_setting('meeting_accounts.retention_sweep', true) = 'on' then return old; end if; ` +
        `raise exception 'security_events is append-only: event % cannot be deleted', old.id using errcode = 'integrity_constraint_violation'; ` +
        `end; $$ language plpgsql;`,
    );
    this.addSql(
      `create trigger "security_events_no_delete" BEFORE DELETE on "security_events" for each ROW execute function "security_events_security_events_no_delete_fn"();`,
    );
  }

  override down(): void {
    this.addSql('drop trigger if exists "security_events_no_delete" on "security_events";');
    this.addSql('drop function if exists "security_events_security_events_no_delete_fn"();');
  }
}
