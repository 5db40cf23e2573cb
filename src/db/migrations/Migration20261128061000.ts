import { Migration } from '@mikro-orm/migrations';

/**
 * Second proofs of dormant accounts (a code sign-in to an account unused for PHONE_DORMANT_DAYS):
 * their proofTokens live beside the mfaTokens, with the same single use, lifetime, attempts and
 * binding to the account, told apart by `purpose` so that neither is taken where the other is asked.
 */
export class Migration20261128061000 extends Migration {
  override up(): void {
    this.addSql(`alter table "mfa_challenges" add "purpose" varchar(16) not null default 'second-factor';`);
  }

  override down(): void {
    this.addSql(`delete from "mfa_challenges" where "purpose" <> 'second-factor';`);
    this.addSql('alter table "mfa_challenges" drop column "purpose";');
  }
}
