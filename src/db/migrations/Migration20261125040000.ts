import { Migration } from '@mikro-orm/migrations';

/**
 * The account search, tuned on 1,000,000 accounts (bench/admin-search.bench.ts):
 * - a nickname query of one or two characters (a two-character Chinese name is a common one) is
 *   below what trigrams index: `nickname_grams` gives each nickname's lower-cased one- and
 *   two-character pieces, and a GIN index of them finds the accounts holding the query's piece;
 * - the planner misjudged how many phones a prefix matches from the default sample (9,800 rows
 *   for 195) and read the whole table newest first, and now and then a rare nickname alike: phone
 *   and nickname get a larger statistics target.
 */
export class Migration20261125040000 extends Migration {
  override up(): void {
    this.addSql(
      'create or replace function "nickname_grams"("nickname" text) returns text[] language sql immutable strict parallel safe as $$ ' +
        'select coalesce(array_agg(distinct substr(lower("nickname"), i, n)), \'{}\') ' +
        'from generate_series(1, char_length("nickname")) as i, (values (1), (2)) as lengths(n) where i + n - 1 <= char_length("nickname") $$;',
    );
    this.addSql('create index "users_nickname_grams_idx" on "users" using gin ("nickname_grams"("nickname"));');
    this.addSql('alter table "users" alter column "phone" set statistics 1000, alter column "nickname" set statistics 1000;');
    this.addSql('analyze "users";');
  }

  override down(): void {
    this.addSql('alter table "users" alter column "phone" set statistics -1, alter column "nickname" set statistics -1;');
    this.addSql('drop index if exists "users_nickname_grams_idx";');
    this.addSql('drop function if exists "nickname_grams"(text);');
  }
}
