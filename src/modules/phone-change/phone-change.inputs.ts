import { z } from 'zod';
import { requiredString } from '../../shared/validation.js';

// Shapes only; whether the number is a mobile one is the service's (parsePhone).
const phone = requiredString(32);
const code = requiredString(16);

export const StartPhoneChangeSchema = z.object({ phone });

export const PhoneChangeCodeSchema = z.object({ code });

/**
 * The account's proof for a phone change: a code sent to the current phone, a TOTP code or a
 * recovery code, or, with none, the session's own recent proof (a passkey, a provider, a second factor).
 */
export type AccountProof = { kind: 'code' | 'totp' | 'recovery'; value: string } | { kind: 'session' };

const PROOFS = ['code', 'totp', 'recoveryCode'] as const;
const optional = (schema: z.ZodType<string>) => schema.nullish().transform((v) => v ?? undefined);

/** At most one of code, totp and recoveryCode; two or three are VALIDATION_FAILED naming them. */
export const VerifyAccountSchema = z
  .object({
    code: optional(code),
    totp: optional(requiredString(32).refine((v) => /^\d{6}$/.test(v.replace(/[\s-]/g, '')), 'must be six digits')),
    recoveryCode: optional(requiredString(32).refine((v) => /^[a-z0-9]{10}$/i.test(v.replace(/[\s-]/g, '')), 'must be a recovery code (abcde-fghij)')),
  })
  .superRefine((input, ctx) => {
    const given = PROOFS.filter((name) => input[name] !== undefined);
    if (given.length <= 1) return;
    for (const name of given) ctx.addIssue({ code: 'custom', path: [name], message: 'give exactly one of code, totp, recoveryCode' });
  })
  .transform((input): AccountProof => {
    if (input.code !== undefined) return { kind: 'code', value: input.code };
    if (input.totp !== undefined) return { kind: 'totp', value: input.totp };
    if (input.recoveryCode !== undefined) return { kind: 'recovery', value: input.recoveryCode };
    return { kind: 'session' };
  });
