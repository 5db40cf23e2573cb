import { Migration } from '@mikro-orm/migrations';

/**
 * The operators' tools: the audit log (append-only, like security events: a trigger refuses every
 * UPDATE, another every DELETE but the retention sweep's), and the indexes of the account search -
 * newest first, the blocked and the operators by partial indexes, phone prefixes by a pattern index,
 * nickname substrings by trigrams (pg_trgm, a trusted extension: the database owner may create it).
 */
export class Migration20261125020000 extends Migration {
  override up(): void {
    this.addSql(
      'create table "audit_log" ("id" bigserial primary key, "at" timestamptz not null default now(), "actor_id" uuid null, ' +
        '"action" varchar(32) not null, "target_user_id" uuid null, "detail" jsonb not null, "ip" varchar(64) null, ' +
        '"user_agent" varchar(512) null, "request_id" uuid null);',
    );
    this.addSql('create index "audit_log_at_idx" on "audit_log" ("at");');
    this.addSql(
      `create or replace function "audit_log_audit_log_append_only_fn"() returns trigger as $$ begin ` +
        `raise exception 'audit_log is append-only: entry % cannot be changed', old.id using errcode = 'integrity_constraint_violation'; ` +
        `end; $$ language plpgsql;`,
    );
    this.addSql(
      'create trigger "audit_log_append_only" BEFORE UPDATE on "audit_log" for each ROW execute function "audit_log_audit_log_append_only_fn"();',
    );
    this.addSql(
      `create or replace function "audit_log_audit_log_no_delete_fn"() returns trigger as $$ begin ` +
        `if current_setting('meeting_accounts.retention_sweep', true) = 'on' then return old; end if; ` +
        `raise exception 'audit_log is append-only: entry % cannot be deleted', old.id using errcode = 'integrity_constraint_violation'; ` +
        `end; $$ language plpgsql;`,
    );
    this.addSql('create trigger "audit_log_no_delete" BEFORE DELETE on "audit_log" for each ROW execute function "audit_log_audit_log_no_delete_fn"();');

    this.addSql('create extension if not exists pg_trgm;');
    this.addSql('create index "users_created_at_id_idx" on "users" ("created_at", "id");');
    this.addSql('create index "users_blocked_created_at_idx" on "users" ("created_at", "id") where "blocked_at" is not null;');
    this.addSql(`create index "users_operators_created_at_idx" on "users" ("created_at", "id") where "role" <> 'USER';`);
    this.addSql('create index "users_phone_pattern_idx" on "users" ("phone" text_pattern_ops);');
    this.addSql('create index "users_nickname_trgm_idx" on "users" using gin ("nickname" gin_trgm_ops);');
  }

  override down(): void {
    for (const index of ['users_nickname_trgm_idx', 'users_phone_pattern_idx', 'users_operators_created_at_idx', 'users_blocked_created_at_idx', 'users_created_at_id_idx']) {
      this.addSql(`drop index if exists "${index}";`);
    }
    this.addSql('drop table if exists "audit_log";');
    this.addSql('drop function if exists "audit_log_audit_log_append_only_fn"();');
    this.addSql('drop function if exists "audit_log_audit_log_no_delete_fn"();');
  }
}
