import { DateTimeResolver, JSONObjectResolver } from 'graphql-scalars';
import { Field, ID, ObjectType, registerEnumType, Resolver, Root, Subscription } from 'type-graphql';
import type { GraphQLContext } from '../../graphql/context.js';
import { AppError, ErrorCode, msg } from '../../shared/errors/app-error.js';
import { unauthenticated } from '../../shared/tokens/access-token.js';
import { Role } from '../account/role.js';
import { AuditEntryType } from '../admin/admin.types.js';
import type { AuditEntryView } from '../audit/audit-log.service.js';
import { AccountEventType, type AccountEvent } from './account-event.js';
import type { LiveConnection } from './live-hub.js';

registerEnumType(AccountEventType, { name: 'AccountEventType', description: "What happened to the signed-in account (see accountEvents)" });

@ObjectType('AccountEvent', { description: 'Something that happened to the signed-in account, delivered as it commits' })
class AccountEventObject {
  @Field(() => AccountEventType)
  type!: AccountEventType;

  @Field(() => DateTimeResolver, { description: 'When it was published (the change committed with it)' })
  at!: Date;

  @Field(() => ID, { nullable: true, description: 'The session the event is about: the one ended (SESSION_REVOKED) or begun (NEW_SIGN_IN)' })
  sessionId!: string | null;

  @Field(() => JSONObjectResolver, {
    description:
      "The event's own fields: exceptSessionId (SIGNED_OUT_EVERYWHERE that kept one), reason (SIGNED_OUT_EVERYWHERE: ACCOUNT_DELETED), change (PROFILE_UPDATED, MFA_CHANGED), provider (IDENTITY_*), method, ip and userAgent (NEW_SIGN_IN), phoneMasked (PHONE_*)",
  })
  detail!: Record<string, unknown>;
}

/** The most subscriptions one session holds at a time on an instance (API.md 10.2). */
const SUBSCRIPTIONS_PER_SESSION = 5;

/** The socket an operation came on: subscriptions are served over WebSocket only. */
function socketOf(ctx: GraphQLContext): LiveConnection {
  if (!ctx.live) throw new AppError(ErrorCode.VALIDATION_FAILED, msg('live.overWebSocket'));
  if (ctx.live.closed) throw unauthenticated('session_ended');
  const { sessionId, userId } = ctx.live;
  if (ctx.services.live.subscriptionsOf(sessionId, userId) >= SUBSCRIPTIONS_PER_SESSION) {
    throw new AppError(ErrorCode.RATE_LIMITED, msg('live.tooManySubscriptions', { limit: SUBSCRIPTIONS_PER_SESSION }), { retryAfter: 60 });
  }
  return ctx.live;
}

@Resolver()
export class LiveResolver {
  @Subscription(() => AccountEventObject, {
    description: "The signed-in account's events, over WebSocket (graphql-transport-ws); the socket closes 4401 when its session ends",
    subscribe: ({ context }) => socketOf(context as GraphQLContext).accountEvents(),
  })
  accountEvents(@Root() event: AccountEvent): AccountEvent {
    return event;
  }

  @Subscription(() => AuditEntryType, {
    description: 'New audit log entries as operators act (SUPPORT, ADMIN), over WebSocket',
    subscribe: async ({ context }) => {
      const ctx = context as GraphQLContext;
      const socket = socketOf(ctx);
      // The role as the socket's last check of its session read it (a change re-checks it).
      ctx.services.admin.authorize(socket.principal, Role.SUPPORT);
      return socket.auditEntries();
    },
  })
  adminAuditEntries(@Root() entry: AuditEntryView): AuditEntryView {
    return entry;
  }
}
