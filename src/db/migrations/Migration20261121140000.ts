import { Migration } from '@mikro-orm/migrations';

/**
 * Sign-in counter, and meeting usage reported by the meeting service. All-time figures are kept
 * as per-user totals, updated in the transaction that records a report (a user with 100,000
 * reports must not cost 100,000 rows per read); distinct meetings per user and per role are
 * counted exactly once through the primary keys of `user_meetings` and `user_meeting_roles`.
 * Only the last 30 days are aggregated at read time, from the (user_id, joined_at) index.
 */
export class Migration20261121140000 extends Migration {
  override up(): void {
    this.addSql(`alter table "users" add column "login_count" int not null default 0;`);
    this.addSql(`create table "meeting_usage" (
      "user_id" uuid not null references "users" ("id") on delete cascade,
      "meeting_id" varchar(128) not null,
      "role" varchar(16) not null check ("role" in ('host', 'participant')),
      "joined_at" timestamptz not null,
      "left_at" timestamptz not null,
      "minutes" int not null,
      "reported_at" timestamptz not null default now(),
      primary key ("user_id", "meeting_id", "joined_at"),
      check ("left_at" >= "joined_at")
    );`);
    this.addSql(`create index "meeting_usage_recent_idx" on "meeting_usage" ("user_id", "joined_at") include ("meeting_id", "minutes");`);
    this.addSql(`create table "user_meetings" (
      "user_id" uuid not null references "users" ("id") on delete cascade,
      "meeting_id" varchar(128) not null,
      primary key ("user_id", "meeting_id")
    );`);
    this.addSql(`create table "user_meeting_roles" (
      "user_id" uuid not null references "users" ("id") on delete cascade,
      "meeting_id" varchar(128) not null,
      "role" varchar(16) not null,
      primary key ("user_id", "meeting_id", "role")
    );`);
    this.addSql(`create table "user_meeting_totals" (
      "user_id" uuid primary key references "users" ("id") on delete cascade,
      "meetings" int not null default 0,
      "meetings_hosted" int not null default 0,
      "meetings_joined" int not null default 0,
      "total_minutes" bigint not null default 0,
      "hosted_minutes" bigint not null default 0,
      "last_meeting_at" timestamptz null
    );`);
  }

  override down(): void {
    this.addSql(`drop table if exists "user_meeting_totals", "user_meeting_roles", "user_meetings", "meeting_usage";`);
    this.addSql(`alter table "users" drop column "login_count";`);
  }
}
