import { z } from 'zod';

/** Page cursors are the base64url of an event id: opaque to clients, checked before any query. */
export function encodeCursor(id: string): string {
  return Buffer.from(`event:${id}`).toString('base64url');
}

/** The largest id a `bigint` column holds: no cursor this service gave is past it, and SQL refuses one that is. */
const MAX_EVENT_ID = 2n ** 63n - 1n;

const cursorField = z
  .string({ error: 'must be a string' })
  .max(64, 'is not a cursor this service gave')
  .transform((value, ctx) => {
    const id = /^event:([1-9]\d{0,18})$/.exec(Buffer.from(value, 'base64url').toString('utf8'))?.[1];
    if (!id || BigInt(id) > MAX_EVENT_ID) {
      ctx.addIssue({ code: 'custom', message: 'is not a cursor this service gave' });
      return z.NEVER;
    }
    return id;
  });

const limitField = z.coerce
  .number({ error: 'must be a whole number from 1 to 100' })
  .int('must be a whole number from 1 to 100')
  .min(1, 'must be a whole number from 1 to 100')
  .max(100, 'must be a whole number from 1 to 100');

/** A query parameter sent empty (`?cursor=&limit=`, as a client fills in a template) reads as absent. */
const emptyAsAbsent = (value: unknown) => (value === '' ? undefined : value);

/** REST: `?cursor=&limit=` (limit 1-100, default 20). */
export const SecurityEventsQuerySchema = z
  .object({ cursor: z.preprocess(emptyAsAbsent, cursorField.optional()), limit: z.preprocess(emptyAsAbsent, limitField.default(20)) })
  .transform(({ cursor, limit }) => ({ after: cursor, limit }));

/** GraphQL: `mySecurityEvents(first, after)`, the same rules. */
export const SecurityEventsArgsSchema = z
  .object({ after: cursorField.nullish(), first: limitField.nullish() })
  .transform(({ after, first }) => ({ after: after ?? undefined, limit: first ?? 20 }));

export type SecurityEventsPage = z.output<typeof SecurityEventsQuerySchema>;
