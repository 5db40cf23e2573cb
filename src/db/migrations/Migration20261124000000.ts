import { Migration } from '@mikro-orm/migrations';

/**
 * The security event log: sign-ins, codes sent, sessions ended, account changes. An account's
 * deletion keeps its events and nulls their user (the foreign key); old events are swept by `at`.
 */
export class Migration20261124000000 extends Migration {
  override up(): void {
    this.addSql(`create table "security_events" (
      "id" bigserial primary key,
      "type" varchar(32) not null,
      "method" varchar(16) null,
      "at" timestamptz not null default now(),
      "user_id" uuid null references "users" ("id") on delete set null,
      "phone_masked" varchar(20) null,
      "ip" varchar(64) null,
      "user_agent" varchar(512) null,
      "session_id" uuid null,
      "request_id" uuid null
    );`);
    this.addSql(`create index "security_events_user_id_id_idx" on "security_events" ("user_id", "id");`);
    this.addSql(`create index "security_events_at_idx" on "security_events" ("at");`);
  }

  override down(): void {
    this.addSql('drop table if exists "security_events";');
  }
}
