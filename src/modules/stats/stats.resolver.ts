import { Ctx, Query, Resolver } from 'type-graphql';
import type { GraphQLContext } from '../../graphql/context.js';
import type { UserStats } from './stats.service.js';
import { UserStatsType } from './stats.types.js';

@Resolver()
export class StatsResolver {
  @Query(() => UserStatsType, { description: 'Personal statistics of the signed-in user' })
  async myStats(@Ctx() ctx: GraphQLContext): Promise<UserStats> {
    return ctx.services.stats.forUser((await ctx.principal()).userId);
  }
}
