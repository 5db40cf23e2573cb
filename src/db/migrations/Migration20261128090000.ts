import { Migration } from '@mikro-orm/migrations';

/**
 * The language an account chose for what the service writes to it (its SMS): `zh-CN` or `en`, null
 * until chosen (the request's language, then the phone's region, decide meanwhile).
 */
export class Migration20261128090000 extends Migration {
  override up(): void {
    this.addSql(`alter table "users" add "locale" varchar(8) null;`);
    this.addSql(`alter table "users" add constraint "users_locale_check" check ("locale" in ('zh-CN', 'en'));`);
  }

  override down(): void {
    this.addSql('alter table "users" drop constraint "users_locale_check";');
    this.addSql('alter table "users" drop column "locale";');
  }
}
