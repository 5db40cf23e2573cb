import { z } from 'zod';

// Keyset pagination, newest first, as every list of the service pages: an opaque cursor (the
// base64url of what the last item of a page was ordered by) and a page size of 1-100, default 20;
// `?cursor=&limit=` on REST, `first`/`after` on GraphQL. A cursor this service did not give is
// VALIDATION_FAILED before any query runs.

const NOT_OURS = 'is not a cursor this service gave';

/** The largest id a `bigint` column holds: no cursor this service gave is past it, and SQL refuses one that is. */
const MAX_BIGINT = 2n ** 63n - 1n;

/** A cursor over a `bigint` id column, tagged with `kind` so that one list's cursor is refused by another. */
export function bigintCursor(kind: string) {
  const pattern = new RegExp(`^${kind}:([1-9]\\d{0,18})$`);
  return {
    encode: (id: string): string => Buffer.from(`${kind}:${id}`).toString('base64url'),
    field: cursorField((decoded) => {
      const id = pattern.exec(decoded)?.[1];
      return id && BigInt(id) <= MAX_BIGINT ? id : undefined;
    }),
  };
}

/** A string cursor whose decoded text `read` turns into the position (undefined: refused). */
export function cursorField<T>(read: (decoded: string) => T | undefined) {
  return z
    .string({ error: 'must be a string' })
    .max(200, NOT_OURS)
    .transform((value, ctx) => {
      const position = read(Buffer.from(value, 'base64url').toString('utf8'));
      if (position === undefined) {
        ctx.addIssue({ code: 'custom', message: NOT_OURS });
        return z.NEVER;
      }
      return position;
    });
}

export const limitField = z.coerce
  .number({ error: 'must be a whole number from 1 to 100' })
  .int('must be a whole number from 1 to 100')
  .min(1, 'must be a whole number from 1 to 100')
  .max(100, 'must be a whole number from 1 to 100');

/** A query parameter sent empty (`?cursor=&limit=`, as a client fills in a template) reads as absent. */
export const emptyAsAbsent = (value: unknown) => (value === '' ? undefined : value);

export interface Page<P> {
  after: P | undefined;
  limit: number;
}

/** REST: `?cursor=&limit=` (limit 1-100, default 20). */
export function pageQuery<P>(cursor: z.ZodType<P, string>) {
  return z
    .object({ cursor: z.preprocess(emptyAsAbsent, cursor.optional()), limit: z.preprocess(emptyAsAbsent, limitField.default(20)) })
    .transform(({ cursor, limit }): Page<P> => ({ after: cursor, limit }));
}

/** GraphQL: `(first, after)`, the same rules. */
export function pageArgs<P>(cursor: z.ZodType<P, string>) {
  return z
    .object({ after: cursor.nullish(), first: limitField.nullish() })
    .transform(({ after, first }): Page<P> => ({ after: after ?? undefined, limit: first ?? 20 }));
}

/** One page of a list: its items with their cursors, and where the next page starts (null on the last). */
export interface Paged<T> {
  items: { cursor: string; node: T }[];
  nextCursor: string | null;
}

/** The page of `rows` read with one row more than `limit`: that extra row says whether a next page exists. */
export function toPage<R, T>(rows: R[], limit: number, cursorOf: (row: R) => string, nodeOf: (row: R) => T): Paged<T> {
  const items = rows.slice(0, limit).map((row) => ({ cursor: cursorOf(row), node: nodeOf(row) }));
  return { items, nextCursor: rows.length > limit ? items.at(-1)!.cursor : null };
}

/** A page as a Relay connection. */
export function toConnection<T>({ items, nextCursor }: Paged<T>) {
  return {
    edges: items,
    pageInfo: { hasNextPage: nextCursor !== null, endCursor: items.at(-1)?.cursor ?? null },
  };
}
