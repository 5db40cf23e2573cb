import type { UserView } from '../account/user.view.js';

/**
 * The events sent to webhook receivers (API.md 8.2): public API, names and payloads fixed. `data`
 * holds the public user view or ids only: never a password hash, a token, a code or a secret.
 */
export type WebhookEvent =
  | { type: 'user.created' | 'user.updated' | 'user.blocked' | 'user.unblocked'; data: { user: UserView } }
  | { type: 'user.deleted'; data: { userId: string } }
  | { type: 'session.created'; data: { userId: string; sessionId: string; method: string; provider?: string } }
  | { type: 'session.revoked'; data: { userId: string; sessionId: string } | { userId: string; all: true } };

/** The user an event is about: its deliveries to one URL keep this user's order. */
export function userOf(event: WebhookEvent): string {
  return 'user' in event.data ? event.data.user.id : event.data.userId;
}

/** The body a receiver gets, the same on every try (its signature covers it with the try's timestamp). */
export function webhookBody(type: string, createdAt: Date, data: unknown): string {
  return JSON.stringify({ type, timestamp: createdAt.toISOString(), data });
}
