import { z } from 'zod';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

declare const canonical: unique symbol;

/**
 * A UUID in its one spelling, lower case, as PostgreSQL prints it. Made only by `toUuid` (the edge's
 * parsers below, the token check): an id a client wrote as `E7C6EF1B-...` is this account's id in
 * every comparison, audit entry and event, and a service whose parameter is a Uuid cannot be handed
 * the caller's spelling by mistake.
 */
export type Uuid = string & { readonly [canonical]: true };

/** `text` as a Uuid, or undefined when it is not a UUID (36 characters, hyphenated, any case). */
export function toUuid(text: string): Uuid | undefined {
  return UUID.test(text) ? (text.toLowerCase() as Uuid) : undefined;
}

const present = (what: string) => (issue: { input: unknown }) => (issue.input === undefined ? 'is required' : `must be ${what}`);

/** An id field that must be a UUID: canonical; anything else VALIDATION_FAILED with `message`. */
export const uuidField = (message = 'must be a UUID') =>
  z.string({ error: (issue) => (issue.input === undefined ? 'is required' : message) }).transform((text, ctx): Uuid => {
    const id = toUuid(text);
    if (id) return id;
    ctx.addIssue({ code: 'custom', message });
    return z.NEVER;
  });

/**
 * The id of something of the caller's own (a session, a passkey): canonical, or null for text that
 * cannot be one, which the service answers as any unknown id (NOT_FOUND), never as malformed input.
 */
const ownIdField = z.string({ error: present('a string') }).transform((text): Uuid | null => toUuid(text) ?? null);

/** `{id}` of a path, or `id: ID!` of a field, naming a session or passkey of the caller's own. */
export const OwnIdSchema = z.object({ id: ownIdField });
