import { Migration } from '@mikro-orm/migrations';

/**
 * Sign-in through external OpenID Connect providers: the identities linked to accounts (one account
 * per identity, one identity per provider per account); the web flows between the redirect to a
 * provider and its return (with the challenge of the frontend that started it, whose verifier alone
 * can exchange its result); the tickets of proven identities waiting to be used (a web flow's
 * one-time result, an unknown identity's link token); the ID tokens the native flow took, until they
 * expire. Security events name the provider of a sign-in or a link; an mfaToken of a sign-in
 * through a provider holds the provider, and the identity it links once the second factor passes.
 */
export class Migration20261126100000 extends Migration {
  override up(): void {
    this.addSql(`create table "identities" (
      "id" uuid primary key,
      "user_id" uuid not null,
      "provider" varchar(32) not null,
      "issuer" varchar(255) not null,
      "subject" varchar(255) not null,
      "email" varchar(320) null,
      "name" varchar(200) null,
      "linked_at" timestamptz not null default now(),
      "last_used_at" timestamptz null,
      constraint "identities_provider_issuer_subject_unique" unique ("provider", "issuer", "subject"),
      constraint "identities_user_id_provider_unique" unique ("user_id", "provider"),
      constraint "identities_user_id_fkey" foreign key ("user_id") references "users" ("id") on delete cascade
    );`);
    this.addSql('create index "identities_user_id_idx" on "identities" ("user_id");');
    this.addSql(`create table "oidc_flows" (
      "state_hash" char(64) primary key,
      "provider" varchar(32) not null,
      "code_verifier" varchar(128) not null,
      "nonce" varchar(128) not null,
      "return_to" text not null,
      "client_challenge" varchar(64) null,
      "user_id" uuid null,
      "created_at" timestamptz not null default now(),
      "expires_at" timestamptz not null,
      constraint "oidc_flows_user_id_fkey" foreign key ("user_id") references "users" ("id") on delete cascade
    );`);
    this.addSql('create index "oidc_flows_user_id_idx" on "oidc_flows" ("user_id");');
    this.addSql('create index "oidc_flows_expires_at_idx" on "oidc_flows" ("expires_at");');
    this.addSql(`create table "identity_tickets" (
      "token_hash" char(64) primary key,
      "kind" varchar(8) not null,
      "provider" varchar(32) not null,
      "issuer" varchar(255) not null,
      "subject" varchar(255) not null,
      "email" varchar(320) null,
      "name" varchar(200) null,
      "client_challenge" varchar(64) null,
      "user_id" uuid null,
      "created_at" timestamptz not null default now(),
      "expires_at" timestamptz not null,
      constraint "identity_tickets_kind_check" check ("kind" in ('result', 'link')),
      constraint "identity_tickets_user_id_fkey" foreign key ("user_id") references "users" ("id") on delete cascade
    );`);
    this.addSql('create index "identity_tickets_user_id_idx" on "identity_tickets" ("user_id");');
    this.addSql('create index "identity_tickets_expires_at_idx" on "identity_tickets" ("expires_at");');
    this.addSql(`create table "used_id_tokens" (
      "token_hash" char(64) primary key,
      "expires_at" timestamptz not null
    );`);
    this.addSql('create index "used_id_tokens_expires_at_idx" on "used_id_tokens" ("expires_at");');
    this.addSql('alter table "security_events" add "provider" varchar(32) null;');
    this.addSql('alter table "mfa_challenges" add "external_sign_in" jsonb null;');
  }

  override down(): void {
    this.addSql('alter table "mfa_challenges" drop column "external_sign_in";');
    this.addSql('alter table "security_events" drop column "provider";');
    this.addSql('drop table if exists "used_id_tokens", "identity_tickets", "oidc_flows", "identities";');
  }
}
