import { lexicographicSortSchema, printSchema, type GraphQLSchema } from 'graphql';
import { buildSchema, type PubSub } from 'type-graphql';
import type { GraphQLContext } from './context.js';
import { withErrorTypes } from './error-types.js';
import { toSubgraph } from './federation.js';
import { assertNestedArgumentsChecked } from './input-checks.js';
import { resolveUserReference, UserKeySchema } from '../modules/account/user-reference.js';
import { AccountResolver } from '../modules/account/account.resolver.js';
import { AdminResolver } from '../modules/admin/admin.resolver.js';
import { AuthResolver } from '../modules/auth/auth.resolver.js';
import { AvatarResolver } from '../modules/avatar/avatar.resolver.js';
import { MfaResolver } from '../modules/mfa/mfa.resolver.js';
import { PhoneChangeResolver } from '../modules/phone-change/phone-change.resolver.js';
import { PublicConfigResolver } from '../modules/public-config/public-config.resolver.js';
import { SecurityEventResolver } from '../modules/security-event/security-event.resolver.js';
import { SessionResolver } from '../modules/session/session.resolver.js';
import { PasskeyResolver } from '../modules/passkey/passkey.resolver.js';
import { IdentityResolver } from '../modules/identity/identity.resolver.js';
import { StatsResolver } from '../modules/stats/stats.resolver.js';
import { LiveResolver } from '../modules/live/live.resolver.js';

const resolvers = [AuthResolver, AccountResolver, SessionResolver, AvatarResolver, PublicConfigResolver, StatsResolver, SecurityEventResolver, AdminResolver, MfaResolver, PasskeyResolver, IdentityResolver, PhoneChangeResolver, LiveResolver] as const;

/**
 * type-graphql asks for a PubSub whenever a schema has subscriptions; each of ours gives its own
 * source of events (`subscribe`: the socket's feed, fed by the instance's LiveHub), so none is used.
 */
const NO_TOPICS: PubSub = {
  publish() {
    throw new Error('live events are published through the LivePublisher, not a type-graphql PubSub');
  },
  subscribe() {
    throw new Error('subscriptions here take their events from their socket (see LiveResolver)');
  },
};

/**
 * The service's schema: the resolvers' (type-graphql), served as an Apollo Federation 2 subgraph
 * whose `User` entities a gateway resolves through `_entities`.
 */
export async function buildAppSchema(): Promise<GraphQLSchema> {
  // Input shapes are checked by the shared zod schemas inside each resolver, not by class-validator.
  const schema = toSubgraph<GraphQLContext>(withErrorTypes(await buildSchema({ resolvers, validate: false, pubSub: NO_TOPICS })), {
    User: {
      key: UserKeySchema,
      resolveReference: (reference, ctx) => resolveUserReference(reference, ctx.principal(), (id) => ctx.loadUser(id)),
    },
  });
  assertNestedArgumentsChecked(schema);
  return schema;
}

/** The SDL committed as schema/schema.graphql; sorted so that it is stable across builds. */
export function printAppSchema(schema: GraphQLSchema): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`;
}
