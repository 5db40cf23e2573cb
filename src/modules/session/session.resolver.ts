import { Arg, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import type { GraphQLContext } from '../../graphql/context.js';
import { OwnIdSchema } from '../../shared/ids.js';
import { parseInput } from '../../shared/validation.js';
import type { SessionView } from './session.service.js';
import { SessionType } from './session.types.js';

@Resolver()
export class SessionResolver {
  @Query(() => [SessionType], { description: 'Live sessions of the signed-in user, newest first' })
  async mySessions(@Ctx() ctx: GraphQLContext): Promise<SessionView[]> {
    const { userId, sessionId } = await ctx.principal();
    return ctx.services.sessions.listLive(userId, sessionId);
  }

  @Mutation(() => Boolean, { description: "Ends one of the user's sessions; NOT_FOUND for any other id" })
  async revokeSession(@Arg('id', () => ID) id: string, @Ctx() ctx: GraphQLContext): Promise<boolean> {
    await ctx.services.auth.revokeSession(await ctx.principal(), parseInput(OwnIdSchema, { id }).id, ctx.client);
    return true;
  }
}
