import { Arg, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import type { GraphQLContext } from '../../graphql/context.js';
import { parseInput } from '../../shared/validation.js';
import { ChangePasswordSchema, DeleteAccountSchema, UpdateProfileSchema } from './account.inputs.js';
import { ChangePasswordInputType, UpdateProfileInputType, UserType } from './account.types.js';
import type { UserView } from './user.view.js';

@Resolver()
export class AccountResolver {
  @Query(() => UserType, { description: 'The signed-in user; UNAUTHENTICATED without a valid token' })
  async me(@Ctx() ctx: GraphQLContext): Promise<UserView> {
    return (await ctx.principal()).user;
  }

  @Mutation(() => UserType)
  async updateProfile(@Arg('input', () => UpdateProfileInputType) input: UpdateProfileInputType, @Ctx() ctx: GraphQLContext): Promise<UserView> {
    return ctx.services.accounts.updateProfile(await ctx.principal(), parseInput(UpdateProfileSchema, input), ctx.client);
  }

  @Mutation(() => Boolean, { description: 'Checks currentPassword when the account has one; ends every other session' })
  async changePassword(@Arg('input', () => ChangePasswordInputType) input: ChangePasswordInputType, @Ctx() ctx: GraphQLContext): Promise<boolean> {
    await ctx.services.accounts.changePassword(await ctx.principal(), parseInput(ChangePasswordSchema, input), ctx.client);
    return true;
  }

  @Mutation(() => Boolean, { description: 'Deletes the account with a delete-account code' })
  async deleteAccount(@Arg('code', () => String) code: string, @Ctx() ctx: GraphQLContext): Promise<boolean> {
    await ctx.services.accounts.deleteAccount(await ctx.principal(), parseInput(DeleteAccountSchema, { code }).code, ctx.client);
    return true;
  }
}
