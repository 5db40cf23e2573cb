import { Migration } from '@mikro-orm/migrations';

/**
 * The webhook outbox (WebhookDelivery): one row per event and receiver URL, written in the
 * transaction of the change it tells of. The dispatcher claims due rows from the two partial indexes
 * of pending rows (in order, and whether an earlier row of the same user and URL is still pending);
 * the operators' list reads (status, seq) or the primary key backwards; the retention sweep deletes
 * by created_at.
 */
export class Migration20261125050000 extends Migration {
  override up(): void {
    this.addSql(
      'create table "webhook_deliveries" ("seq" bigserial primary key, "id" uuid not null, "event_type" varchar(32) not null, ' +
        '"user_key" uuid not null, "payload" jsonb not null, "url" text not null, "status" varchar(16) not null default \'PENDING\', ' +
        '"attempts" int not null default 0, "last_status" int null, "last_error" varchar(500) null, ' +
        '"next_attempt_at" timestamptz not null default now(), "locked_until" timestamptz null, ' +
        '"created_at" timestamptz not null default now(), "delivered_at" timestamptz null);',
    );
    this.addSql('alter table "webhook_deliveries" add constraint "webhook_deliveries_id_unique" unique ("id");');
    this.addSql('create index "webhook_deliveries_status_seq_idx" on "webhook_deliveries" ("status", "seq");');
    this.addSql('create index "webhook_deliveries_created_at_idx" on "webhook_deliveries" ("created_at");');
    this.addSql(`create index "webhook_deliveries_pending_user_idx" on "webhook_deliveries" ("user_key", "url", "seq") where "status" = 'PENDING';`);
    this.addSql(`create index "webhook_deliveries_pending_idx" on "webhook_deliveries" ("seq") where "status" = 'PENDING';`);
  }

  override down(): void {
    this.addSql('drop table if exists "webhook_deliveries";');
  }
}
