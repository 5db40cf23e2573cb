import { Migration } from '@mikro-orm/migrations';

/**
 * When each session's methods (`amr`) were last proven: its sign-in, or its latest step-up with a
 * second factor. Its access tokens carry it as `auth_time`, unchanged by refresh, so that a change
 * that needs a recent second factor is judged by when the factor was proven, not by when the token
 * was issued. Sessions signed in before it get the time of their sign-in.
 */
export class Migration20261126090000 extends Migration {
  override up(): void {
    this.addSql(`alter table "sessions" add "auth_time" timestamptz not null default now();`);
    this.addSql(`update "sessions" set "auth_time" = "created_at";`);
  }

  override down(): void {
    this.addSql('alter table "sessions" drop column "auth_time";');
  }
}
