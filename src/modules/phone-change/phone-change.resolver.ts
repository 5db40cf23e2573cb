import { Arg, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import type { GraphQLContext } from '../../graphql/context.js';
import { parseInput } from '../../shared/validation.js';
import { PhoneChangeCodeSchema, StartPhoneChangeSchema, VerifyAccountSchema } from './phone-change.inputs.js';
import { PhoneChangeType } from './phone-change.types.js';
import type { PhoneChangeView } from './phone-change.view.js';

@Resolver()
export class PhoneChangeResolver {
  @Query(() => PhoneChangeType, { nullable: true, description: "The signed-in user's pending (PENDING or WAITING) phone change; null without one" })
  async myPhoneChange(@Ctx() ctx: GraphQLContext): Promise<PhoneChangeView | null> {
    return ctx.services.phoneChanges.find(await ctx.principal());
  }

  @Mutation(() => PhoneChangeType, { description: 'Starts a change of the phone number (replacing a pending one) and sends a code to the new number' })
  async startPhoneChange(@Arg('phone', () => String) phone: string, @Ctx() ctx: GraphQLContext): Promise<PhoneChangeView> {
    const input = parseInput(StartPhoneChangeSchema, { phone });
    return ctx.services.phoneChanges.start(await ctx.principal(), input.phone, ctx.client);
  }

  @Mutation(() => PhoneChangeType, { description: 'Proves the new number with its code; PHONE_TAKEN when another account has it; APPLIED when the account is proven too' })
  async verifyNewPhone(@Arg('code', () => String) code: string, @Ctx() ctx: GraphQLContext): Promise<PhoneChangeView> {
    const input = parseInput(PhoneChangeCodeSchema, { code });
    return ctx.services.phoneChanges.verifyNew(await ctx.principal(), input.code, ctx.client);
  }

  @Mutation(() => Boolean, { description: 'Sends a code to the current number, for verifyPhoneChangeAccount' })
  async sendCurrentPhoneCode(@Ctx() ctx: GraphQLContext): Promise<boolean> {
    await ctx.services.phoneChanges.sendCurrentCode(await ctx.principal(), ctx.client);
    return true;
  }

  @Mutation(() => PhoneChangeType, {
    description: "Proves the account with one of: the current number's code, a TOTP code, a recovery code; with none, the session's passkey, provider or second factor of the last 10 minutes. APPLIED when the new number is proven too",
  })
  async verifyPhoneChangeAccount(
    @Arg('code', () => String, { nullable: true }) code: string | null,
    @Arg('totp', () => String, { nullable: true }) totp: string | null,
    @Arg('recoveryCode', () => String, { nullable: true }) recoveryCode: string | null,
    @Ctx() ctx: GraphQLContext,
  ): Promise<PhoneChangeView> {
    const proof = parseInput(VerifyAccountSchema, { code, totp, recoveryCode });
    return ctx.services.phoneChanges.verifyAccount(await ctx.principal(), proof, ctx.client);
  }

  @Mutation(() => PhoneChangeType, { description: 'The lost-phone path: with the new number proven and no account proof, the change waits PHONE_RECOVERY_DELAY_HOURS (WAITING)' })
  async waitForPhoneChange(@Ctx() ctx: GraphQLContext): Promise<PhoneChangeView> {
    return ctx.services.phoneChanges.wait(await ctx.principal(), ctx.client);
  }

  @Mutation(() => Boolean, { description: 'Cancels the pending or waiting phone change; NOT_FOUND without one' })
  async cancelPhoneChange(@Ctx() ctx: GraphQLContext): Promise<boolean> {
    await ctx.services.phoneChanges.cancel(await ctx.principal(), ctx.client);
    return true;
  }
}
