import { Arg, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import type { GraphQLContext } from '../../graphql/context.js';
import { parseInput } from '../../shared/validation.js';
import { MfaCodeSchema } from './mfa.inputs.js';
import type { MfaStatus, TotpEnrollment } from './mfa.service.js';
import { MfaStatusType, TotpEnrollmentType } from './mfa.types.js';

@Resolver()
export class MfaResolver {
  @Query(() => MfaStatusType, { description: "The signed-in user's second factors" })
  async myMfa(@Ctx() ctx: GraphQLContext): Promise<MfaStatus> {
    return ctx.services.mfa.status((await ctx.principal()).userId);
  }

  @Mutation(() => TotpEnrollmentType, { description: 'A new pending TOTP secret (replacing a pending one); MFA_ALREADY_ENABLED while TOTP is on' })
  async startTotpEnrollment(@Ctx() ctx: GraphQLContext): Promise<TotpEnrollment> {
    return ctx.services.mfa.startTotpEnrollment(await ctx.principal());
  }

  @Mutation(() => [String], { description: 'Turns TOTP on with a code of the pending secret; returns the 10 recovery codes, shown once' })
  async confirmTotp(@Arg('code', () => String) code: string, @Ctx() ctx: GraphQLContext): Promise<string[]> {
    return ctx.services.mfa.confirmTotp(await ctx.principal(), parseInput(MfaCodeSchema, { code }).code, ctx.client);
  }

  @Mutation(() => Boolean, { description: 'Turns TOTP off with a TOTP or recovery code; ends every other session' })
  async disableTotp(@Arg('code', () => String) code: string, @Ctx() ctx: GraphQLContext): Promise<boolean> {
    await ctx.services.mfa.disableTotp(await ctx.principal(), parseInput(MfaCodeSchema, { code }).code, ctx.client);
    return true;
  }

  @Mutation(() => [String], { description: 'A new set of 10 recovery codes with a TOTP or recovery code; the old set stops working' })
  async regenerateRecoveryCodes(@Arg('code', () => String) code: string, @Ctx() ctx: GraphQLContext): Promise<string[]> {
    return ctx.services.mfa.regenerateRecoveryCodes(await ctx.principal(), parseInput(MfaCodeSchema, { code }).code, ctx.client);
  }
}
