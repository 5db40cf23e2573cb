import { DateTimeResolver, JSONObjectResolver } from 'graphql-scalars';
import { Field, ID, Int, ObjectType, registerEnumType } from 'type-graphql';
import { UserType } from '../account/account.types.js';
import { IdentityType } from '../identity/identity.types.js';
import { PhoneChangeType } from '../phone-change/phone-change.types.js';
import { AuditAction } from '../audit/audit-action.js';
import { WebhookDeliveryStatus } from '../webhook/webhook-delivery-status.js';
import { connectionOf, type Connection } from '../../graphql/connection.js';
import { AccountStatus } from './account-status.js';

registerEnumType(AccountStatus, { name: 'AccountStatus', description: 'Whether an operator has blocked the account' });
registerEnumType(AuditAction, { name: 'AuditAction', description: 'What an operator did' });
registerEnumType(WebhookDeliveryStatus, { name: 'WebhookDeliveryStatus', description: 'Where a webhook delivery stands' });

@ObjectType('AdminUser', { description: 'An account as operators (SUPPORT, ADMIN) see it' })
export class AdminUserType extends UserType {
  @Field(() => AccountStatus)
  status!: AccountStatus;

  @Field(() => DateTimeResolver, { nullable: true })
  blockedAt!: Date | null;

  @Field(() => String, { nullable: true, description: "The operator's reason, while blocked" })
  blockedReason!: string | null;

  @Field(() => Int, { description: 'Live sessions' })
  activeSessions!: number;

  @Field({ description: 'Whether TOTP is on (the secret and recovery codes are never shown)' })
  mfaEnabled!: boolean;

  @Field(() => Int, { description: 'Passkeys registered' })
  passkeys!: number;

  @Field(() => [IdentityType], { description: "The external providers' identities linked to the account" })
  identities!: IdentityType[];

  @Field(() => PhoneChangeType, { nullable: true, description: "The account's change of phone number that is being proven or waits (an operator's included), if any" })
  pendingPhoneChange!: PhoneChangeType | null;
}

export const AdminUserConnectionType = connectionOf('AdminUser', AdminUserType, 'Accounts found by an operator, newest first');
export type AdminUserConnectionType = Connection<AdminUserType>;

@ObjectType('AuditEntry', { description: 'An operator action: who, what, on whom, when' })
export class AuditEntryType {
  @Field(() => ID)
  id!: string;

  @Field(() => DateTimeResolver)
  at!: Date;

  @Field(() => ID, { nullable: true, description: "The operator's account; null for the command-line tool" })
  actorId!: string | null;

  @Field(() => AuditAction)
  action!: AuditAction;

  @Field(() => ID, { nullable: true, description: 'The account acted on' })
  targetUserId!: string | null;

  @Field(() => JSONObjectResolver, { description: "The action's own fields (a block's reason, a role change's from and to, what was read) and where the operator acted from (ip, userAgent, requestId)" })
  detail!: Record<string, unknown>;
}

export const AuditEntryConnectionType = connectionOf('AuditEntry', AuditEntryType, 'The audit log, newest first');
export type AuditEntryConnectionType = Connection<AuditEntryType>;

@ObjectType('WebhookDelivery', { description: 'One event sent (or to be sent) to one webhook URL' })
export class WebhookDeliveryType {
  @Field(() => ID, { description: 'The webhook-id header the receiver sees, the same on every try' })
  id!: string;

  @Field({ description: 'user.created, user.updated, user.deleted, user.blocked, user.unblocked, session.created or session.revoked' })
  eventType!: string;

  @Field({ description: 'The receiver, with any credentials in it redacted' })
  url!: string;

  @Field(() => WebhookDeliveryStatus)
  status!: WebhookDeliveryStatus;

  @Field(() => Int, { description: 'Tries made' })
  attempts!: number;

  @Field(() => Int, { nullable: true, description: "The last try's HTTP status; null when it got no answer" })
  lastStatus!: number | null;

  @Field(() => String, { nullable: true, description: 'Why the last try failed' })
  lastError!: string | null;

  @Field(() => DateTimeResolver, { description: 'When a PENDING delivery is next tried (once the events of its user before it are delivered)' })
  nextAttemptAt!: Date;

  @Field(() => DateTimeResolver)
  createdAt!: Date;

  @Field(() => DateTimeResolver, { nullable: true })
  deliveredAt!: Date | null;
}

export const WebhookDeliveryConnectionType = connectionOf('WebhookDelivery', WebhookDeliveryType, 'Webhook deliveries, newest first');
export type WebhookDeliveryConnectionType = Connection<WebhookDeliveryType>;
