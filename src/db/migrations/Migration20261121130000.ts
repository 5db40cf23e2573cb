import { Migration } from '@mikro-orm/migrations';

/** The key of the user's current avatar in the avatar store (null: no avatar). */
export class Migration20261121130000 extends Migration {
  override up(): void {
    this.addSql(`alter table "users" add column "avatar_key" varchar(64) null;`);
  }

  override down(): void {
    this.addSql(`alter table "users" drop column "avatar_key";`);
  }
}
