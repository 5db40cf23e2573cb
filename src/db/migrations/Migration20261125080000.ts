import { Migration } from '@mikro-orm/migrations';

/**
 * Passkeys (WebAuthn credentials, found by their credential id at a sign-in without a phone) and the
 * single-use challenges of their registration and sign-in, in PostgreSQL so that every instance can
 * take a challenge another one gave. Registration challenges belong to their account (and go with
 * it); sign-in challenges to none. The janitor deletes expired challenges by `expires_at`.
 */
export class Migration20261125080000 extends Migration {
  override up(): void {
    this.addSql(`create table "passkeys" (
      "id" uuid primary key,
      "user_id" uuid not null,
      "credential_id" varchar(1400) not null, -- base64url of at most 1023 bytes
      "public_key" bytea not null,
      "counter" bigint not null default 0,
      "transports" text[] not null default '{}',
      "device_type" varchar(16) not null,
      "backed_up" boolean not null default false,
      "name" varchar(64) not null,
      "created_at" timestamptz not null default now(),
      "last_used_at" timestamptz null,
      constraint "passkeys_credential_id_unique" unique ("credential_id"),
      constraint "passkeys_user_id_fkey" foreign key ("user_id") references "users" ("id") on delete cascade
    );`);
    this.addSql('create index "passkeys_user_id_idx" on "passkeys" ("user_id");');
    this.addSql(`create table "webauthn_challenges" (
      "id" uuid primary key,
      "user_id" uuid null,
      "purpose" varchar(16) not null,
      "challenge" varchar(128) not null,
      "created_at" timestamptz not null default now(),
      "expires_at" timestamptz not null,
      constraint "webauthn_challenges_user_id_fkey" foreign key ("user_id") references "users" ("id") on delete cascade
    );`);
    this.addSql('create index "webauthn_challenges_user_id_idx" on "webauthn_challenges" ("user_id");');
    this.addSql('create index "webauthn_challenges_expires_at_idx" on "webauthn_challenges" ("expires_at");');
  }

  override down(): void {
    this.addSql('drop table if exists "webauthn_challenges", "passkeys";');
  }
}
