import { Migration } from '@mikro-orm/migrations';

/**
 * The append-only tables refuse TRUNCATE too, which fires no row trigger: a statement trigger on
 * each. Written here only, not on the entities: MikroORM reads triggers from
 * information_schema.triggers, which lists no TRUNCATE trigger, so it would see one declared on an
 * entity as missing on every comparison.
 */
export class Migration20261125030000 extends Migration {
  override up(): void {
    for (const table of ['security_events', 'audit_log']) {
      this.addSql(
        `create or replace function "${table}_${table}_no_truncate_fn"() returns trigger as $$ begin ` +
          `raise exception '${table} is append-only: it cannot be truncated' using errcode = 'integrity_constraint_violation'; ` +
          `end; $$ language plpgsql;`,
      );
      this.addSql(`create trigger "${table}_no_truncate" BEFORE TRUNCATE on "${table}" for each STATEMENT execute function "${table}_${table}_no_truncate_fn"();`);
    }
  }

  override down(): void {
    for (const table of ['security_events', 'audit_log']) {
      this.addSql(`drop trigger if exists "${table}_no_truncate" on "${table}";`);
      this.addSql(`drop function if exists "${table}_${table}_no_truncate_fn"();`);
    }
  }
}
