import { Arg, Ctx, Int, Query, Resolver } from 'type-graphql';
import type { GraphQLContext } from '../../graphql/context.js';
import { parseInput } from '../../shared/validation.js';
import { SecurityEventsArgsSchema } from './security-event.inputs.js';
import { SecurityEventConnectionType } from './security-event.types.js';

@Resolver()
export class SecurityEventResolver {
  @Query(() => SecurityEventConnectionType, { description: 'Security events of the signed-in user, newest first (first: 1-100, default 20)' })
  async mySecurityEvents(
    @Arg('first', () => Int, { nullable: true }) first: number | null,
    @Arg('after', () => String, { nullable: true }) after: string | null,
    @Ctx() ctx: GraphQLContext,
  ): Promise<SecurityEventConnectionType> {
    const page = parseInput(SecurityEventsArgsSchema, { first, after });
    const { items, nextCursor } = await ctx.services.securityEvents.list((await ctx.principal()).userId, page);
    return {
      edges: items.map(({ cursor, event }) => ({ cursor, node: event })),
      pageInfo: { hasNextPage: nextCursor !== null, endCursor: items.at(-1)?.cursor ?? null },
    };
  }
}
