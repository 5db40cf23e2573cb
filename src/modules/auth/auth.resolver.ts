import { Arg, Ctx, Mutation, Resolver } from 'type-graphql';
import type { GraphQLContext } from '../../graphql/context.js';
import { parseInput } from '../../shared/validation.js';
import {
  CodeLoginSchema,
  LogoutSchema,
  PasswordLoginSchema,
  RefreshSchema,
  RegisterSchema,
  ResetPasswordSchema,
  SendCodeSchema,
  VerifyMfaSchema,
} from './auth.inputs.js';
import type { SendCodeResult } from './auth.service.js';
import type { AuthPayload } from './sign-ins.js';
import { PasskeyLoginSchema } from '../passkey/passkey.inputs.js';
import { SecondProofSchema } from './second-proof.inputs.js';
import { PasskeyLoginOptionsType } from '../passkey/passkey.types.js';
import { JsonScalar } from '../../graphql/json-scalar.js';
import {
  AuthPayloadType,
  CodeLoginInputType,
  PasswordLoginInputType,
  RegisterInputType,
  ResetPasswordInputType,
  SendCodeInputType,
  SendCodeResultType,
  VerifyMfaInputType,
} from './auth.types.js';

@Resolver()
export class AuthResolver {
  @Mutation(() => SendCodeResultType, { description: 'Sends a verification code by SMS' })
  sendCode(@Arg('input', () => SendCodeInputType) input: SendCodeInputType, @Ctx() ctx: GraphQLContext): Promise<SendCodeResult> {
    return ctx.services.auth.sendCode(parseInput(SendCodeSchema, input), ctx.client);
  }

  @Mutation(() => AuthPayloadType, { description: 'Signs in with an SMS code; creates the account when registration is on' })
  login(@Arg('input', () => CodeLoginInputType) input: CodeLoginInputType, @Ctx() ctx: GraphQLContext): Promise<AuthPayload> {
    return ctx.services.auth.loginWithCode(parseInput(CodeLoginSchema, input), ctx.client);
  }

  @Mutation(() => AuthPayloadType)
  loginWithPassword(
    @Arg('input', () => PasswordLoginInputType) input: PasswordLoginInputType,
    @Ctx() ctx: GraphQLContext,
  ): Promise<AuthPayload> {
    return ctx.services.auth.loginWithPassword(parseInput(PasswordLoginSchema, input), ctx.client);
  }

  @Mutation(() => AuthPayloadType)
  register(@Arg('input', () => RegisterInputType) input: RegisterInputType, @Ctx() ctx: GraphQLContext): Promise<AuthPayload> {
    return ctx.services.auth.register(parseInput(RegisterSchema, input), ctx.client);
  }

  @Mutation(() => AuthPayloadType, {
    description:
      'Finishes a sign-in, or a step-up of a signed-in session, that answered MFA_REQUIRED with a TOTP or recovery code; a step-up returns fresh tokens of that session. The mfaToken is single use',
  })
  verifyMfa(@Arg('input', () => VerifyMfaInputType) input: VerifyMfaInputType, @Ctx() ctx: GraphQLContext): Promise<AuthPayload> {
    const { mfaToken, code } = parseInput(VerifyMfaSchema, input);
    return ctx.services.auth.verifyMfa(mfaToken, code, ctx.client);
  }

  @Mutation(() => AuthPayloadType, {
    description:
      'Finishes a sign-in that answered SECOND_PROOF_REQUIRED (a dormant account) with exactly one of its password, a TOTP code or a recovery code. ' +
      'A TOTP or recovery code completes it; after a password, an account with TOTP on answers MFA_REQUIRED. The proofToken is single use',
  })
  completeSecondProof(
    @Arg('proofToken', () => String) proofToken: string,
    @Arg('password', () => String, { nullable: true }) password: string | null,
    @Arg('totp', () => String, { nullable: true }) totp: string | null,
    @Arg('recoveryCode', () => String, { nullable: true }) recoveryCode: string | null,
    @Ctx() ctx: GraphQLContext,
  ): Promise<AuthPayload> {
    return ctx.services.secondProof.complete(parseInput(SecondProofSchema, { proofToken, password, totp, recoveryCode }), ctx.client);
  }

  @Mutation(() => AuthPayloadType, { description: 'Rotates a refresh token: returns a new pair, the old token stops working' })
  refreshToken(@Arg('refreshToken', () => String) refreshToken: string, @Ctx() ctx: GraphQLContext): Promise<AuthPayload> {
    return ctx.services.auth.refresh(parseInput(RefreshSchema, { refreshToken }).refreshToken, ctx.client);
  }

  @Mutation(() => PasskeyLoginOptionsType, { description: 'Starts a passkey sign-in (no phone needed); RATE_LIMITED per address' })
  passkeyLoginOptions(@Ctx() ctx: GraphQLContext): Promise<{ challengeId: string; options: unknown }> {
    return ctx.services.auth.passkeyOptions(ctx.client);
  }

  @Mutation(() => AuthPayloadType, {
    description: 'Signs in with the JSON of navigator.credentials.get() for the challenge of passkeyLoginOptions; no second factor is asked',
  })
  loginWithPasskey(
    @Arg('challengeId', () => String) challengeId: string,
    @Arg('response', () => JsonScalar) response: unknown,
    @Ctx() ctx: GraphQLContext,
  ): Promise<AuthPayload> {
    const input = parseInput(PasskeyLoginSchema, { challengeId, response });
    return ctx.services.auth.loginWithPasskey(input.challengeId, input.response, ctx.client);
  }

  @Mutation(() => Boolean, {
    description:
      'Revokes the current session, or every session of the user. With refreshToken, the session of that refresh token ' +
      '(no access token needed; one sent along must be of the same account)',
  })
  async logout(
    @Arg('allSessions', () => Boolean, { nullable: true, defaultValue: false }) allSessions: boolean | null,
    @Arg('refreshToken', () => String, { nullable: true }) refreshToken: string | null,
    @Ctx() ctx: GraphQLContext,
  ): Promise<boolean> {
    const input = parseInput(LogoutSchema, { allSessions, refreshToken });
    if (input.refreshToken === undefined) {
      await ctx.services.auth.logout(await ctx.principal(), input.allSessions, ctx.client);
    } else {
      const caller = ctx.presentsBearer() ? await ctx.principal() : undefined;
      await ctx.services.auth.logoutWithRefreshToken(input.refreshToken, caller, input.allSessions, ctx.client);
    }
    return true;
  }

  @Mutation(() => Boolean, { description: 'Sets a new password with a reset-password code; ends every session' })
  async resetPassword(@Arg('input', () => ResetPasswordInputType) input: ResetPasswordInputType, @Ctx() ctx: GraphQLContext): Promise<boolean> {
    await ctx.services.auth.resetPassword(parseInput(ResetPasswordSchema, input), ctx.client);
    return true;
  }
}
