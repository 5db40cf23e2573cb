import { Arg, Ctx, Int, Query, Resolver } from 'type-graphql';
import type { GraphQLContext } from '../../graphql/context.js';
import { toConnection } from '../../shared/pagination.js';
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
    return toConnection(await ctx.services.securityEvents.list((await ctx.principal()).userId, page));
  }
}
