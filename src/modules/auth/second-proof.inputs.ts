import { z } from 'zod';
import { requiredString } from '../../shared/validation.js';

const PROOFS = ['password', 'totp', 'recoveryCode'] as const;
const EXACTLY_ONE = `give exactly one of ${PROOFS.join(', ')}`;

/**
 * The proofToken of a SECOND_PROOF_REQUIRED answer (43 characters) and exactly one proof of the
 * account: its password, a TOTP code (six digits; spaces and hyphens free) or a recovery code
 * (`abcde-fghij`; spaces, hyphens and case free). None or several: VALIDATION_FAILED naming them.
 */
export const SecondProofSchema = z
  .object({
    proofToken: requiredString(128),
    // As a sign-in's password: the policy is not asked of a password being checked.
    password: requiredString(1024).nullish().transform((v) => v ?? undefined),
    totp: requiredString(32)
      .refine((v) => /^\d{6}$/.test(v.replace(/[\s-]/g, '')), 'must be six digits')
      .nullish()
      .transform((v) => v ?? undefined),
    recoveryCode: requiredString(32)
      .refine((v) => /^[a-z0-9]{10}$/i.test(v.replace(/[\s-]/g, '')), 'must be a recovery code (abcde-fghij)')
      .nullish()
      .transform((v) => v ?? undefined),
  })
  .superRefine((input, ctx) => {
    const given = PROOFS.filter((name) => input[name] !== undefined);
    if (given.length === 1) return;
    for (const name of given.length === 0 ? PROOFS : given) ctx.addIssue({ code: 'custom', path: [name], message: EXACTLY_ONE });
  });
export type SecondProofInput = z.output<typeof SecondProofSchema>;
