import { Ctx, Query, Resolver } from 'type-graphql';
import type { GraphQLContext } from '../../graphql/context.js';
import { UserType } from './account.types.js';
import type { UserView } from './user.view.js';

@Resolver()
export class AccountResolver {
  @Query(() => UserType, { description: 'The signed-in user; UNAUTHENTICATED without a valid token' })
  async me(@Ctx() ctx: GraphQLContext): Promise<UserView> {
    return (await ctx.principal()).user;
  }
}
