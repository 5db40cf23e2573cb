import { Arg, Ctx, FieldResolver, ID, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { GraphQLContext } from '../../graphql/context.js';
import { ArgumentsParsedBy } from '../../graphql/input-checks.js';
import type { Uuid } from '../../shared/ids.js';
import { toConnection } from '../../shared/pagination.js';
import { parseInput } from '../../shared/validation.js';
import type { Principal } from '../account/principal.js';
import { Role } from '../account/role.js';
import { SecurityEventsArgsSchema } from '../security-event/security-event.inputs.js';
import { SecurityEventConnectionType } from '../security-event/security-event.types.js';
import { SessionType } from '../session/session.types.js';
import type { SessionView } from '../session/session.service.js';
import { AccountStatus } from './account-status.js';
import { WebhookDeliveryStatus } from '../webhook/webhook-delivery-status.js';
import type { WebhookDeliveryView } from '../webhook/webhook.service.js';
import { PhoneChangeType } from '../phone-change/phone-change.types.js';
import type { PhoneChangeView } from '../phone-change/phone-change.view.js';
import { AuditLogArgsSchema, BlockUserSchema, ChangePhoneSchema, DeliveryIdSchema, UserIdSchema, UserSearchArgsSchema, WebhookDeliveriesArgsSchema } from './admin.inputs.js';
import type { AdminUserView } from './admin.service.js';
import { AdminUserConnectionType, AdminUserType, AuditEntryConnectionType, WebhookDeliveryConnectionType, WebhookDeliveryType } from './admin.types.js';

/** The caller, once its role is `needed`, and the account `id` names, canonical from here on. */
async function onUser(ctx: GraphQLContext, id: string, needed: Role.SUPPORT | Role.ADMIN): Promise<{ principal: Principal; id: Uuid }> {
  const principal = await ctx.principal();
  ctx.services.admin.authorize(principal, needed);
  return { principal, id: parseInput(UserIdSchema, { id }).id };
}

/** The operators' fields; each checks the caller's role (AdminService.authorize), as the REST routes do. */
@Resolver(() => AdminUserType)
export class AdminResolver {
  @Query(() => AdminUserConnectionType, {
    description: 'Accounts by id, phone (any form, or leading digits) or nickname substring, newest first (SUPPORT or ADMIN; first: 1-100, default 20)',
  })
  async adminUsers(
    @Arg('query', () => String, { nullable: true }) query: string | null,
    @Arg('status', () => AccountStatus, { nullable: true }) status: AccountStatus | null,
    @Arg('role', () => Role, { nullable: true }) role: Role | null,
    @Arg('first', () => Int, { nullable: true }) first: number | null,
    @Arg('after', () => String, { nullable: true }) after: string | null,
    @Ctx() ctx: GraphQLContext,
  ): Promise<AdminUserConnectionType> {
    const principal = await ctx.principal();
    ctx.services.admin.authorize(principal, Role.SUPPORT);
    const input = parseInput(UserSearchArgsSchema, { query, status, role, first, after });
    return toConnection(await ctx.services.admin.search(principal, input, ctx.client));
  }

  @Query(() => AdminUserType, { description: 'One account (SUPPORT or ADMIN); recorded in the audit log as USER_VIEWED' })
  async adminUser(@Arg('id', () => ID) id: string, @Ctx() ctx: GraphQLContext): Promise<AdminUserView> {
    const user = await onUser(ctx, id, Role.SUPPORT);
    return ctx.services.admin.user(user.principal, user.id, ctx.client);
  }

  @FieldResolver(() => [SessionType], { description: 'Live sessions, newest first; recorded in the audit log as USER_VIEWED' })
  async sessions(@Root() user: AdminUserView, @Ctx() ctx: GraphQLContext): Promise<SessionView[]> {
    return ctx.services.admin.sessions(await ctx.principal(), user.id, ctx.client);
  }

  @FieldResolver(() => SecurityEventConnectionType, {
    description: "The account's security events, newest first (first: 1-100, default 20); recorded in the audit log as USER_VIEWED",
  })
  @ArgumentsParsedBy(SecurityEventsArgsSchema)
  async securityEvents(
    @Root() user: AdminUserView,
    @Arg('first', () => Int, { nullable: true }) first: number | null,
    @Arg('after', () => String, { nullable: true }) after: string | null,
    @Ctx() ctx: GraphQLContext,
  ): Promise<SecurityEventConnectionType> {
    const page = parseInput(SecurityEventsArgsSchema, { first, after });
    return toConnection(await ctx.services.admin.securityEvents(await ctx.principal(), user.id, page, ctx.client));
  }

  @Query(() => AuditEntryConnectionType, { description: 'The audit log of operator actions, newest first (ADMIN; first: 1-100, default 20)' })
  async adminAuditLog(
    @Arg('first', () => Int, { nullable: true }) first: number | null,
    @Arg('after', () => String, { nullable: true }) after: string | null,
    @Ctx() ctx: GraphQLContext,
  ): Promise<AuditEntryConnectionType> {
    const principal = await ctx.principal();
    ctx.services.admin.authorize(principal, Role.ADMIN);
    return toConnection(await ctx.services.admin.auditLog(principal, parseInput(AuditLogArgsSchema, { first, after })));
  }

  @Query(() => WebhookDeliveryConnectionType, { description: 'Webhook deliveries, newest first, of one status when given (ADMIN; first: 1-100, default 20)' })
  async adminWebhookDeliveries(
    @Arg('status', () => WebhookDeliveryStatus, { nullable: true }) status: WebhookDeliveryStatus | null,
    @Arg('first', () => Int, { nullable: true }) first: number | null,
    @Arg('after', () => String, { nullable: true }) after: string | null,
    @Ctx() ctx: GraphQLContext,
  ): Promise<WebhookDeliveryConnectionType> {
    const principal = await ctx.principal();
    ctx.services.admin.authorize(principal, Role.ADMIN);
    return toConnection(await ctx.services.admin.webhookDeliveries(principal, parseInput(WebhookDeliveriesArgsSchema, { status, first, after })));
  }

  @Mutation(() => WebhookDeliveryType, { description: 'Sends a delivery once more, due now (ADMIN); audited as WEBHOOK_RETRIED' })
  async adminRetryWebhookDelivery(@Arg('id', () => ID) id: string, @Ctx() ctx: GraphQLContext): Promise<WebhookDeliveryView> {
    const principal = await ctx.principal();
    ctx.services.admin.authorize(principal, Role.ADMIN);
    return ctx.services.admin.retryWebhookDelivery(principal, parseInput(DeliveryIdSchema, { id }).id, ctx.client);
  }

  @Mutation(() => AdminUserType, { description: 'Blocks the account and ends its sessions (ADMIN); reason 1-500 characters' })
  async adminBlockUser(@Arg('id', () => ID) id: string, @Arg('reason') reason: string, @Ctx() ctx: GraphQLContext): Promise<AdminUserView> {
    const user = await onUser(ctx, id, Role.ADMIN);
    return ctx.services.admin.block(user.principal, user.id, parseInput(BlockUserSchema, { reason }).reason, ctx.client);
  }

  @Mutation(() => AdminUserType, { description: 'Lifts the block (ADMIN)' })
  async adminUnblockUser(@Arg('id', () => ID) id: string, @Ctx() ctx: GraphQLContext): Promise<AdminUserView> {
    const user = await onUser(ctx, id, Role.ADMIN);
    return ctx.services.admin.unblock(user.principal, user.id, ctx.client);
  }

  @Mutation(() => AdminUserType, { description: "Gives another account a role (ADMIN; never one's own)" })
  async adminSetRole(@Arg('id', () => ID) id: string, @Arg('role', () => Role) role: Role, @Ctx() ctx: GraphQLContext): Promise<AdminUserView> {
    const user = await onUser(ctx, id, Role.ADMIN);
    return ctx.services.admin.setRole(user.principal, user.id, role, ctx.client);
  }

  @Mutation(() => PhoneChangeType, {
    description:
      "Starts a change of another account's phone number (ADMIN; never one's own; reason 1-500 characters): it always waits PHONE_RECOVERY_DELAY_HOURS (WAITING), the account is told by SMS and PHONE_CHANGE_REQUESTED and may cancel it; audited as PHONE_CHANGE_REQUESTED, and PHONE_CHANGED when it applies",
  })
  async adminChangePhone(@Arg('id', () => ID) id: string, @Arg('phone') phone: string, @Arg('reason') reason: string, @Ctx() ctx: GraphQLContext): Promise<PhoneChangeView> {
    const user = await onUser(ctx, id, Role.ADMIN);
    const input = parseInput(ChangePhoneSchema, { phone, reason });
    return ctx.services.admin.changePhone(user.principal, user.id, input.phone, input.reason, ctx.client);
  }

  @Mutation(() => Boolean, { description: "Ends every session of the account (SUPPORT for a USER's, ADMIN for anyone's)" })
  async adminRevokeSessions(@Arg('id', () => ID) id: string, @Ctx() ctx: GraphQLContext): Promise<boolean> {
    const user = await onUser(ctx, id, Role.SUPPORT);
    await ctx.services.admin.revokeSessions(user.principal, user.id, ctx.client);
    return true;
  }

  @Mutation(() => Boolean, { description: "Deletes another account, as its owner's deletion does (ADMIN)" })
  async adminDeleteUser(@Arg('id', () => ID) id: string, @Ctx() ctx: GraphQLContext): Promise<boolean> {
    const user = await onUser(ctx, id, Role.ADMIN);
    await ctx.services.admin.delete(user.principal, user.id, ctx.client);
    return true;
  }
}
