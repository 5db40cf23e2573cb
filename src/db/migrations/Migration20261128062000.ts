import { Migration } from '@mikro-orm/migrations';

/**
 * Changes of an account's phone number (API.md 10.1): one PENDING or WAITING change per account, the
 * codes sent for it kept on it (never looked up by a phone number), the waiting ones found by when
 * they apply. A change goes with its account.
 */
export class Migration20261128062000 extends Migration {
  override up(): void {
    this.addSql(`create table "phone_changes" (
      "id" uuid primary key,
      "user_id" uuid not null,
      "phone" varchar(16) not null,
      "status" varchar(10) not null default 'PENDING',
      "new_code_hash" char(64) null,
      "new_code_attempts" int not null default 0,
      "new_code_expires_at" timestamptz null,
      "current_code_hash" char(64) null,
      "current_code_attempts" int not null default 0,
      "current_code_expires_at" timestamptz null,
      "new_phone_proven_at" timestamptz null,
      "account_proven_at" timestamptz null,
      "applies_at" timestamptz null,
      "session_id" uuid null,
      "operator_id" uuid null,
      "reason" varchar(500) null,
      "created_at" timestamptz not null default now(),
      "ended_at" timestamptz null,
      constraint "phone_changes_status_check" check ("status" in ('PENDING', 'WAITING', 'APPLIED', 'CANCELLED')),
      constraint "phone_changes_user_id_fkey" foreign key ("user_id") references "users" ("id") on delete cascade
    );`);
    this.addSql('create index "phone_changes_user_id_idx" on "phone_changes" ("user_id");');
    this.addSql(`create unique index "phone_changes_pending_user_unique" on "phone_changes" ("user_id") where "status" in ('PENDING', 'WAITING');`);
    this.addSql(`create index "phone_changes_waiting_idx" on "phone_changes" ("applies_at") where "status" = 'WAITING';`);
  }

  override down(): void {
    this.addSql('drop table if exists "phone_changes";');
  }
}
