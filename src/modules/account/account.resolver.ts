import { Arg, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import type { GraphQLContext } from '../../graphql/context.js';
import { parseInput } from '../../shared/validation.js';
import type { SessionView } from '../auth/sessions.js';
import { ChangePasswordSchema, DeleteAccountSchema, UpdateProfileSchema } from './account.inputs.js';
import { ChangePasswordInputType, SessionType, UpdateProfileInputType, UserType } from './account.types.js';
import type { UserView } from './user.view.js';

@Resolver()
export class AccountResolver {
  @Query(() => UserType, { description: 'The signed-in user; UNAUTHENTICATED without a valid token' })
  async me(@Ctx() ctx: GraphQLContext): Promise<UserView> {
    return (await ctx.principal()).user;
  }

  @Query(() => [SessionType], { description: 'Live sessions of the signed-in user, newest first' })
  async mySessions(@Ctx() ctx: GraphQLContext): Promise<SessionView[]> {
    return ctx.services.selfService.listSessions(await ctx.principal());
  }

  @Mutation(() => UserType)
  async updateProfile(@Arg('input', () => UpdateProfileInputType) input: UpdateProfileInputType, @Ctx() ctx: GraphQLContext): Promise<UserView> {
    const { nickname } = parseInput(UpdateProfileSchema, input);
    return ctx.services.selfService.updateProfile(await ctx.principal(), nickname);
  }

  @Mutation(() => Boolean, { description: 'Checks currentPassword when the account has one; ends every other session' })
  async changePassword(@Arg('input', () => ChangePasswordInputType) input: ChangePasswordInputType, @Ctx() ctx: GraphQLContext): Promise<boolean> {
    await ctx.services.selfService.changePassword(await ctx.principal(), parseInput(ChangePasswordSchema, input), ctx.client);
    return true;
  }

  @Mutation(() => Boolean, { description: "Ends one of the user's sessions; NOT_FOUND for any other id" })
  async revokeSession(@Arg('id', () => ID) id: string, @Ctx() ctx: GraphQLContext): Promise<boolean> {
    await ctx.services.selfService.revokeSession(await ctx.principal(), id);
    return true;
  }

  @Mutation(() => Boolean, { description: 'Deletes the account with a delete-account code' })
  async deleteAccount(@Arg('code', () => String) code: string, @Ctx() ctx: GraphQLContext): Promise<boolean> {
    await ctx.services.selfService.deleteAccount(await ctx.principal(), parseInput(DeleteAccountSchema, { code }).code);
    return true;
  }
}
