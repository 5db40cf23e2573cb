import { Migration } from '@mikro-orm/migrations';

/**
 * The security event log is append-only in the database too, not only in the code: an UPDATE is
 * refused unless it is the account deletion's foreign key action nulling the user and nothing else.
 * Deletes stay allowed: the janitor sweeps events past their retention. The trigger is declared on
 * the `SecurityEvent` entity; this is the SQL MikroORM derives from it (function named
 * `<table>_<trigger>_fn`), so the schema check finds no difference.
 */
export class Migration20261124120000 extends Migration {
  override up(): void {
    this.addSql(
      `create or replace function "security_events_security_events_append_only_fn"() returns trigger as $$ begin ` +
        `if new.user_id is null and old.user_id is not null and (to_jsonb(new) - 'user_id') = (to_jsonb(old) - 'user_id') then return new; end if; ` +
        `raise exception 'security_events is append-only: event % cannot be changed', old.id using errcode = 'integrity_constraint_violation'; ` +
        `end; $$ language plpgsql;`,
    );
    this.addSql(
      `create trigger "security_events_append_only" before update on "security_events" for each row execute function "security_events_security_events_append_only_fn"();`,
    );
  }

  override down(): void {
    this.addSql('drop trigger if exists "security_events_append_only" on "security_events";');
    this.addSql('drop function if exists "security_events_security_events_append_only_fn"();');
  }
}
