import { Migration } from '@mikro-orm/migrations';

/**
 * Second factors: the TOTP factor of an account (its sealed secret, pending until confirmed, and the
 * last time step accepted, against replays), its recovery codes (hashed) and the mfaTokens of
 * sign-ins waiting for a second factor (hashed, single use, five minutes). All go with the account.
 */
export class Migration20261125070000 extends Migration {
  override up(): void {
    this.addSql(`create table "totp_factors" (
      "user_id" uuid primary key,
      "secret_sealed" text not null,
      "created_at" timestamptz not null default now(),
      "confirmed_at" timestamptz null,
      "last_used_step" int null,
      constraint "totp_factors_user_id_fkey" foreign key ("user_id") references "users" ("id") on delete cascade
    );`);
    this.addSql(`create table "recovery_codes" (
      "user_id" uuid not null,
      "code_hash" char(64) not null,
      "created_at" timestamptz not null default now(),
      "used_at" timestamptz null,
      primary key ("user_id", "code_hash"),
      constraint "recovery_codes_user_id_fkey" foreign key ("user_id") references "users" ("id") on delete cascade
    );`);
    this.addSql(`create table "mfa_challenges" (
      "token_hash" char(64) primary key,
      "user_id" uuid not null,
      "method" varchar(16) not null,
      "amr" text[] not null,
      "attempts" int not null default 0,
      "created_at" timestamptz not null default now(),
      "expires_at" timestamptz not null,
      "used_at" timestamptz null,
      constraint "mfa_challenges_user_id_fkey" foreign key ("user_id") references "users" ("id") on delete cascade
    );`);
    this.addSql(`create index "mfa_challenges_user_id_idx" on "mfa_challenges" ("user_id");`);
    this.addSql(`create index "mfa_challenges_expires_at_idx" on "mfa_challenges" ("expires_at");`);
  }

  override down(): void {
    this.addSql('drop table if exists "mfa_challenges", "recovery_codes", "totp_factors";');
  }
}
