import { z } from 'zod';
import { requiredString } from '../../shared/validation.js';
import { nicknameField } from '../account/nickname.js';
import { mfaCode } from '../mfa/mfa.inputs.js';
import { CodePurpose, SendCodePurpose } from './code-purpose.js';

// Shapes only; phone validity, password policy and nickname rules are business rules in the services.
const phone = requiredString(32);
const code = requiredString(16);
// Long enough that an over-long password reaches the policy and is answered WEAK_PASSWORD.
const password = requiredString(1024);

export const SendCodeSchema = z.object({
  phone,
  purpose: z
    .enum(SendCodePurpose, { error: `must be one of ${Object.values(SendCodePurpose).join(', ')}` })
    .nullish()
    .transform((purpose) => purpose ?? CodePurpose.LOGIN),
});
export type SendCodeInput = z.output<typeof SendCodeSchema>;

export const CodeLoginSchema = z.object({ phone, code });
export type CodeLoginInput = z.output<typeof CodeLoginSchema>;

export const PasswordLoginSchema = z.object({ phone, password });
export type PasswordLoginInput = z.output<typeof PasswordLoginSchema>;

export const RegisterSchema = z.object({
  phone,
  code,
  password,
  nickname: nicknameField.nullish(),
});
export type RegisterInput = z.output<typeof RegisterSchema>;

export const RefreshSchema = z.object({ refreshToken: requiredString(256) });

export const LogoutSchema = z.object({
  allSessions: z.boolean({ error: 'must be a boolean' }).nullish().transform((v) => v ?? false),
  /** Instead of (or with) the bearer token: ends this refresh token's session. */
  refreshToken: requiredString(256).min(1, 'must not be empty').nullish().transform((v) => v ?? undefined),
});

export const ResetPasswordSchema = z.object({ phone, code, newPassword: password });
export type ResetPasswordInput = z.output<typeof ResetPasswordSchema>;

/** The mfaToken of an MFA_REQUIRED answer (43 characters) and a TOTP or recovery code. */
export const VerifyMfaSchema = z.object({ mfaToken: requiredString(128), code: mfaCode });
