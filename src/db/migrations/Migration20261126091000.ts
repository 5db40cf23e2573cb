import { Migration } from '@mikro-orm/migrations';

/**
 * Step-up mfaTokens: asked by a signed-in session for a change that needs a recent second factor,
 * bound to that session as well as to the account, and finished by upgrading the session rather than
 * by a sign-in. They have no first factor of their own, so `method` is null for them.
 */
export class Migration20261126091000 extends Migration {
  override up(): void {
    this.addSql(`alter table "mfa_challenges" alter column "method" drop not null;`);
    this.addSql(`alter table "mfa_challenges" add "session_id" uuid null;`);
    this.addSql(
      `alter table "mfa_challenges" add constraint "mfa_challenges_session_id_fkey" foreign key ("session_id") references "sessions" ("id") on delete cascade;`,
    );
    this.addSql(`create index "mfa_challenges_session_id_idx" on "mfa_challenges" ("session_id");`);
  }

  override down(): void {
    this.addSql(`delete from "mfa_challenges" where "session_id" is not null;`);
    this.addSql('alter table "mfa_challenges" drop column "session_id";');
    this.addSql(`alter table "mfa_challenges" alter column "method" set not null;`);
  }
}
