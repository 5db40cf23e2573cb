import { Migration } from '@mikro-orm/migrations';

/** Accounts, sessions with rotating refresh tokens, verification codes and shared rate-limit counters. */
export class Migration20261121000000 extends Migration {
  override up(): void {
    this.addSql(`create table "users" (
      "id" uuid primary key,
      "phone" varchar(20) not null,
      "nickname" varchar(256) not null, -- 32 graphemes; one emoji can be several code points
      "password_hash" varchar(100) null,
      "created_at" timestamptz not null default now(),
      "updated_at" timestamptz not null default now(),
      "last_login_at" timestamptz null,
      constraint "users_phone_unique" unique ("phone")
    );`);
    this.addSql(`create table "sessions" (
      "id" uuid primary key,
      "user_id" uuid not null references "users" ("id") on delete cascade,
      "created_at" timestamptz not null default now(),
      "last_used_at" timestamptz not null default now(),
      "expires_at" timestamptz not null,
      "revoked_at" timestamptz null,
      "user_agent" varchar(512) null,
      "ip" varchar(64) null
    );`);
    this.addSql(`create index "sessions_user_id_live_idx" on "sessions" ("user_id") where "revoked_at" is null;`);
    this.addSql(`create table "refresh_tokens" (
      "token_hash" char(64) primary key,
      "session_id" uuid not null references "sessions" ("id") on delete cascade,
      "created_at" timestamptz not null default now(),
      "expires_at" timestamptz not null,
      "used_at" timestamptz null
    );`);
    this.addSql(`create index "refresh_tokens_session_id_idx" on "refresh_tokens" ("session_id");`);
    this.addSql(`create table "verification_codes" (
      "phone" varchar(20) not null,
      "purpose" varchar(20) not null,
      "code_hash" char(64) not null,
      "attempts" int not null default 0,
      "created_at" timestamptz not null default now(),
      "expires_at" timestamptz not null,
      "consumed_at" timestamptz null,
      primary key ("phone", "purpose")
    );`);
    this.addSql(`create table "rate_limits" (
      "key" varchar(200) primary key,
      "count" int not null,
      "reset_at" timestamptz not null
    );`);
    this.addSql(`create index "rate_limits_reset_at_idx" on "rate_limits" ("reset_at");`);
  }

  override down(): void {
    this.addSql('drop table if exists "rate_limits", "verification_codes", "refresh_tokens", "sessions", "users";');
  }
}
