import { Migration } from '@mikro-orm/migrations';

/** Roles (USER by default) and the operator's block, with its time and reason. */
export class Migration20261125000000 extends Migration {
  override up(): void {
    this.addSql(`alter table "users" add "role" text not null default 'USER', add "blocked_at" timestamptz null, add "blocked_reason" varchar(500) null;`);
    this.addSql(`alter table "users" add constraint "users_role_check" check ("role" in ('USER', 'SUPPORT', 'ADMIN'));`);
  }

  override down(): void {
    this.addSql('alter table "users" drop constraint if exists "users_role_check";');
    this.addSql('alter table "users" drop column "role", drop column "blocked_at", drop column "blocked_reason";');
  }
}
