import { Routine } from '@mikro-orm/core';

/**
 * `nickname_grams(nickname)`: the lower-cased one- and two-character pieces of a nickname, which
 * the GIN index `users_nickname_grams_idx` holds for a nickname search of one or two characters
 * (below what trigrams index). Created by Migration20261125040000; declared here so that the ORM's
 * schema comparison knows the function is wanted.
 */
export const NicknameGrams = new Routine({
  name: 'nickname_grams',
  type: 'function',
  language: 'sql',
  params: { nickname: { type: 'text' } },
  returns: { runtimeType: 'string', columnType: 'text[]' },
  expression:
    'create or replace function "nickname_grams"("nickname" text) returns text[] language sql immutable strict parallel safe as $$ ' +
    "select coalesce(array_agg(distinct substr(lower(\"nickname\"), i, n)), '{}') " +
    'from generate_series(1, char_length("nickname")) as i, (values (1), (2)) as lengths(n) where i + n - 1 <= char_length("nickname") $$;',
  ignoreSchemaChanges: ['body', 'comment', 'security', 'deterministic', 'definer'],
});
