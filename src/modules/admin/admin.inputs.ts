import { z } from 'zod';
import { cursorField, emptyAsAbsent, limitField, pageArgs, pageQuery, type Page } from '../../shared/pagination.js';
import { auditCursor } from '../audit/audit-log.service.js';
import { toUuid, uuidField } from '../../shared/ids.js';
import { requiredString } from '../../shared/validation.js';
import { hasControlCharacters, textField } from '../../shared/text.js';
import type { SearchPosition } from '../account/account.repository.js';
import { Role } from '../account/role.js';
import { WebhookDeliveryStatus } from '../webhook/webhook-delivery-status.js';
import { webhookCursor } from '../webhook/webhook.service.js';
import { AccountStatus } from './account-status.js';

/** The account an operator acts on: `users/{id}` on REST, `id: ID!` on GraphQL; canonical from here on. */
export const UserIdSchema = z.object({ id: uuidField() });

/** The delivery `webhook-deliveries/{id}/retry` and `adminRetryWebhookDelivery(id)` name. */
export const DeliveryIdSchema = z.object({ id: uuidField() });

/** 1-500 characters once trimmed; line breaks and tabs are text, other control characters are not. */
const reasonField = textField(500, { lines: true });
export const BlockUserSchema = z.object({ reason: reasonField });

/**
 * An operator's change of an account's phone number: the new number (its shape here; the service
 * makes it E.164 or refuses it INVALID_PHONE, as every phone the API takes) and a reason, as a block's.
 */
export const ChangePhoneSchema = z.object({ phone: requiredString(32), reason: reasonField });

const roleField = z.enum(Role, { error: `must be one of ${Object.values(Role).join(', ')}` });

export const SetRoleSchema = z.object({ role: roleField });

/** A search page ends at an account: its creation time, to the microsecond, and its id. */
const SEARCH_CURSOR = /^user:(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z):(.+)$/;

export function encodeSearchCursor({ createdAt, id }: SearchPosition): string {
  return Buffer.from(`user:${createdAt}:${id}`).toString('base64url');
}

const searchCursor = cursorField((decoded): SearchPosition | undefined => {
  const [, createdAt, id] = SEARCH_CURSOR.exec(decoded) ?? [];
  const uuid = id && toUuid(id);
  return createdAt && uuid && isCalendarInstant(createdAt) ? { createdAt, id: uuid } : undefined;
});

/**
 * Whether the cursor's time is one the calendar has: Date.parse takes February 30th (as March 2nd)
 * and year 0, which PostgreSQL refuses, as a 500 once the query runs. Read back, the time must be itself.
 */
function isCalendarInstant(text: string): boolean {
  const ms = Date.parse(text);
  return !Number.isNaN(ms) && !text.startsWith('0000') && new Date(ms).toISOString().slice(0, 19) === text.slice(0, 19);
}

const searchFields = {
  query: z
    .string({ error: 'must be a string' })
    .max(100, 'must be at most 100 characters')
    // Format characters stay: a nickname's emoji hold joiners.
    .refine((v) => !hasControlCharacters(v, { format: false }), 'must not contain control characters'),
  status: z.enum(AccountStatus, { error: `must be one of ${Object.values(AccountStatus).join(', ')}` }),
  role: roleField,
};

export interface UserSearchInput {
  query?: string;
  status?: AccountStatus;
  role?: Role;
  page: Page<SearchPosition>;
}

/** REST: `GET /admin/users?query=&status=&role=&cursor=&limit=`; an empty parameter reads as absent. */
export const UserSearchQuerySchema = z
  .object({
    query: z.preprocess(emptyAsAbsent, searchFields.query.optional()),
    status: z.preprocess(emptyAsAbsent, searchFields.status.optional()),
    role: z.preprocess(emptyAsAbsent, searchFields.role.optional()),
    cursor: z.preprocess(emptyAsAbsent, searchCursor.optional()),
    limit: z.preprocess(emptyAsAbsent, limitField.default(20)),
  })
  .transform(({ query, status, role, cursor, limit }): UserSearchInput => ({ query, status, role, page: { after: cursor, limit } }));

/** GraphQL: `adminUsers(query, status, role, first, after)`, the same rules (status and role are enums there). */
export const UserSearchArgsSchema = z
  .object({
    query: searchFields.query.nullish(),
    status: searchFields.status.nullish(),
    role: searchFields.role.nullish(),
    after: searchCursor.nullish(),
    first: limitField.nullish(),
  })
  .transform(({ query, status, role, after, first }): UserSearchInput => ({
    query: query ?? undefined,
    status: status ?? undefined,
    role: role ?? undefined,
    page: { after: after ?? undefined, limit: first ?? 20 },
  }));

/** The audit log's pages: `?cursor=&limit=` on REST, `adminAuditLog(first, after)` on GraphQL. */
export const AuditLogQuerySchema = pageQuery(auditCursor.field);
export const AuditLogArgsSchema = pageArgs(auditCursor.field);

const deliveryStatus = z.enum(WebhookDeliveryStatus, { error: `must be one of ${Object.values(WebhookDeliveryStatus).join(', ')}` });

export interface WebhookDeliveriesInput {
  status?: WebhookDeliveryStatus;
  page: Page<string>;
}

/** REST: `GET /admin/webhook-deliveries?status=&cursor=&limit=`; an empty parameter reads as absent. */
export const WebhookDeliveriesQuerySchema = z
  .object({
    status: z.preprocess(emptyAsAbsent, deliveryStatus.optional()),
    cursor: z.preprocess(emptyAsAbsent, webhookCursor.field.optional()),
    limit: z.preprocess(emptyAsAbsent, limitField.default(20)),
  })
  .transform(({ status, cursor, limit }): WebhookDeliveriesInput => ({ status, page: { after: cursor, limit } }));

/** GraphQL: `adminWebhookDeliveries(status, first, after)`, the same rules. */
export const WebhookDeliveriesArgsSchema = z
  .object({ status: deliveryStatus.nullish(), after: webhookCursor.field.nullish(), first: limitField.nullish() })
  .transform(({ status, after, first }): WebhookDeliveriesInput => ({ status: status ?? undefined, page: { after: after ?? undefined, limit: first ?? 20 } }));
