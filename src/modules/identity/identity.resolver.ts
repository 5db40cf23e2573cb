import { Arg, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import type { GraphQLContext } from '../../graphql/context.js';
import { parseInput } from '../../shared/validation.js';
import { AuthPayloadType } from '../auth/auth.types.js';
import type { AuthPayload } from '../auth/sign-ins.js';
import { ExchangeSchema, IdTokenSchema, LinkByPhoneSchema, ProviderSchema, ResultSchema, ReturnToSchema, StartSchema } from './identity.inputs.js';
import type { IdentityView } from './identity.service.js';
import { IdentityType } from './identity.types.js';

/** Sign-in through external OpenID Connect providers, and the signed-in user's identities (API.md 9.1). */
@Resolver()
export class IdentityResolver {
  @Query(() => [IdentityType], { description: "The signed-in user's linked identities, oldest first" })
  async myIdentities(@Ctx() ctx: GraphQLContext): Promise<IdentityView[]> {
    return ctx.services.identities.listFor((await ctx.principal()).userId);
  }

  @Mutation(() => String, {
    description:
      "The provider's authorization URL of a new sign-in (to open in the browser); it returns to returnTo, one of OIDC_RETURN_URLS, with ?result= for completeExternalSignIn or ?error=. codeChallenge (required unless OIDC_REQUIRE_BINDING=false): the S256 of a verifier the frontend keeps, without which the result cannot be exchanged",
  })
  async externalSignInUrl(
    @Arg('provider', () => ID) provider: string,
    @Arg('returnTo') returnTo: string,
    @Arg('codeChallenge', () => String, { nullable: true }) codeChallenge: string | null,
    @Ctx() ctx: GraphQLContext,
  ): Promise<string> {
    const input = { ...parseInput(ProviderSchema, { provider }), ...parseInput(StartSchema, { returnTo, codeChallenge }) };
    return ctx.services.externalSignIn.authorizationUrl(input.provider, input.returnTo, ctx.client, input.codeChallenge);
  }

  @Mutation(() => AuthPayloadType, {
    description:
      'Signs in with the one-time result of a web flow and the verifier of its codeChallenge (required unless OIDC_REQUIRE_BINDING=false: a result without one is INVALID_CREDENTIALS); PHONE_VERIFICATION_REQUIRED (extensions.linkToken, extensions.identity) for an identity no account has',
  })
  async completeExternalSignIn(
    @Arg('result') result: string,
    @Arg('codeVerifier', () => String, { nullable: true }) codeVerifier: string | null,
    @Ctx() ctx: GraphQLContext,
  ): Promise<AuthPayload> {
    const input = parseInput(ExchangeSchema, { result, codeVerifier });
    return ctx.services.externalSignIn.completeWebFlow(input.result, input.codeVerifier, ctx.client);
  }

  @Mutation(() => AuthPayloadType, {
    description: "Signs in with a platform SDK's ID token (nonce: the raw one the app gave the SDK); PHONE_VERIFICATION_REQUIRED as completeExternalSignIn",
  })
  async signInWithIdToken(
    @Arg('provider', () => ID) provider: string,
    @Arg('idToken') idToken: string,
    @Arg('nonce', () => String, { nullable: true }) nonce: string | null,
    @Ctx() ctx: GraphQLContext,
  ): Promise<AuthPayload> {
    const input = { ...parseInput(ProviderSchema, { provider }), ...parseInput(IdTokenSchema, { idToken, nonce }) };
    return ctx.services.externalSignIn.signInWithIdToken(input.provider, input.idToken, input.nonce, ctx.client);
  }

  @Mutation(() => AuthPayloadType, {
    description: "Links an identity no account had to the phone's account (created when there is none and registration is on) with the phone's login code, and signs in to it",
  })
  async linkExternalIdentity(@Arg('linkToken') linkToken: string, @Arg('phone') phone: string, @Arg('code') code: string, @Ctx() ctx: GraphQLContext): Promise<AuthPayload> {
    return ctx.services.externalSignIn.linkByPhone(parseInput(LinkByPhoneSchema, { linkToken, phone, code }), ctx.client);
  }

  @Mutation(() => IdentityType, { description: "Links the identity of a platform SDK's ID token to the signed-in account; MFA_REQUIRED without a recent second factor when TOTP is on" })
  async addIdentityWithIdToken(
    @Arg('provider', () => ID) provider: string,
    @Arg('idToken') idToken: string,
    @Arg('nonce', () => String, { nullable: true }) nonce: string | null,
    @Ctx() ctx: GraphQLContext,
  ): Promise<IdentityView> {
    const principal = await ctx.principal();
    const input = { ...parseInput(ProviderSchema, { provider }), ...parseInput(IdTokenSchema, { idToken, nonce }) };
    return ctx.services.identities.addWithIdToken(principal, input.provider, input.idToken, input.nonce, ctx.client);
  }

  @Mutation(() => String, {
    description: "The provider's authorization URL of a web flow that links its identity to the signed-in account; it returns to returnTo with ?result= for completeExternalLink. MFA_REQUIRED as addIdentityWithIdToken",
  })
  async externalLinkUrl(@Arg('provider', () => ID) provider: string, @Arg('returnTo') returnTo: string, @Ctx() ctx: GraphQLContext): Promise<string> {
    const principal = await ctx.principal();
    const input = { ...parseInput(ProviderSchema, { provider }), ...parseInput(ReturnToSchema, { returnTo }) };
    return ctx.services.identities.authorizationUrl(input.provider, input.returnTo, ctx.client, principal);
  }

  @Mutation(() => IdentityType, { description: "Links the identity of a link flow's one-time result to the signed-in account that started it" })
  async completeExternalLink(@Arg('result') result: string, @Ctx() ctx: GraphQLContext): Promise<IdentityView> {
    const principal = await ctx.principal();
    return ctx.services.identities.completeLink(principal, parseInput(ResultSchema, { result }).result, ctx.client);
  }

  @Mutation(() => Boolean, { description: "Unlinks the account's identity at the provider (always allowed: the phone still signs in); NOT_FOUND without one" })
  async removeIdentity(@Arg('provider', () => ID) provider: string, @Ctx() ctx: GraphQLContext): Promise<boolean> {
    const principal = await ctx.principal();
    await ctx.services.identities.remove(principal, parseInput(ProviderSchema, { provider }).provider, ctx.client);
    return true;
  }
}
