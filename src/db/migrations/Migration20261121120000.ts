import { Migration } from '@mikro-orm/migrations';

/**
 * A nickname is up to 32 graphemes, and one grapheme can be several code points (emoji sequences,
 * combining marks): 64 code points did not hold every valid nickname. 256 is the input bound.
 */
export class Migration20261121120000 extends Migration {
  override up(): void {
    this.addSql(`alter table "users" alter column "nickname" type varchar(256);`);
  }

  override down(): void {
    this.addSql(`alter table "users" alter column "nickname" type varchar(64);`);
  }
}
