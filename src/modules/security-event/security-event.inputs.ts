import type { z } from 'zod';
import { bigintCursor, pageArgs, pageQuery } from '../../shared/pagination.js';

/** Page cursors are the base64url of an event id: opaque to clients, checked before any query. */
export const eventCursor = bigintCursor('event');

/** REST: `?cursor=&limit=` (limit 1-100, default 20). */
export const SecurityEventsQuerySchema = pageQuery(eventCursor.field);

/** GraphQL: `mySecurityEvents(first, after)`, the same rules. */
export const SecurityEventsArgsSchema = pageArgs(eventCursor.field);

export type SecurityEventsPage = z.output<typeof SecurityEventsQuerySchema>;
