import { Arg, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import type { GraphQLContext } from '../../graphql/context.js';
import { OwnIdSchema } from '../../shared/ids.js';
import { parseInput } from '../../shared/validation.js';
import { AddPasskeySchema, RenamePasskeySchema } from './passkey.inputs.js';
import type { PasskeyView } from './passkey.service.js';
import { PasskeyType } from './passkey.types.js';
import { JsonScalar } from '../../graphql/json-scalar.js';

/** The signed-in user's passkeys; signing in with one is AuthResolver.loginWithPasskey. */
@Resolver()
export class PasskeyResolver {
  @Query(() => [PasskeyType], { description: "The signed-in user's passkeys, oldest first" })
  async myPasskeys(@Ctx() ctx: GraphQLContext): Promise<PasskeyView[]> {
    return ctx.services.passkeys.list((await ctx.principal()).userId);
  }

  @Mutation(() => JsonScalar, {
    description:
      'PublicKeyCredentialCreationOptionsJSON for navigator.credentials.create(); its challenge is single use, valid 5 minutes. With TOTP on, MFA_REQUIRED unless a second factor was proven in the last 10 minutes',
  })
  async passkeyRegistrationOptions(@Ctx() ctx: GraphQLContext): Promise<unknown> {
    return ctx.services.passkeys.registrationOptions(await ctx.principal());
  }

  @Mutation(() => PasskeyType, {
    description: 'Stores the credential navigator.credentials.create() made (its JSON); VALIDATION_FAILED when it does not verify; MFA_REQUIRED as passkeyRegistrationOptions',
  })
  async addPasskey(
    @Arg('response', () => JsonScalar) response: unknown,
    @Arg('name', () => String, { nullable: true }) name: string | null,
    @Ctx() ctx: GraphQLContext,
  ): Promise<PasskeyView> {
    const principal = await ctx.principal();
    return ctx.services.passkeys.add(principal, parseInput(AddPasskeySchema, { response, name }), ctx.client);
  }

  @Mutation(() => PasskeyType, { description: "Renames one of the user's passkeys; NOT_FOUND for any other id; MFA_REQUIRED as passkeyRegistrationOptions" })
  async renamePasskey(@Arg('id', () => ID) id: string, @Arg('name', () => String) name: string, @Ctx() ctx: GraphQLContext): Promise<PasskeyView> {
    const principal = await ctx.principal();
    return ctx.services.passkeys.rename(principal, parseInput(OwnIdSchema, { id }).id, parseInput(RenamePasskeySchema, { name }).name);
  }

  @Mutation(() => Boolean, { description: "Removes one of the user's passkeys; NOT_FOUND for any other id; MFA_REQUIRED as passkeyRegistrationOptions" })
  async removePasskey(@Arg('id', () => ID) id: string, @Ctx() ctx: GraphQLContext): Promise<boolean> {
    await ctx.services.passkeys.remove(await ctx.principal(), parseInput(OwnIdSchema, { id }).id, ctx.client);
    return true;
  }
}
