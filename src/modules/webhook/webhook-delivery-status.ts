/** Where a webhook delivery stands: public API (REST values and the GraphQL enum); add, never rename. */
export const WebhookDeliveryStatus = {
  /** Not delivered yet: due at `nextAttemptAt`, or waiting for an earlier event of the same user. */
  PENDING: 'PENDING',
  /** The receiver answered 2xx. */
  DELIVERED: 'DELIVERED',
  /** Every try of the retry schedule failed; an ADMIN may retry it. */
  DEAD: 'DEAD',
} as const;
export type WebhookDeliveryStatus = (typeof WebhookDeliveryStatus)[keyof typeof WebhookDeliveryStatus];
