import { Migration } from '@mikro-orm/migrations';

/** How each session was signed in (RFC 8176 `amr` values), kept for the access tokens it issues. */
export class Migration20261125060000 extends Migration {
  override up(): void {
    this.addSql(`alter table "sessions" add "amr" text[] not null default '{}';`);
  }

  override down(): void {
    this.addSql('alter table "sessions" drop column "amr";');
  }
}
