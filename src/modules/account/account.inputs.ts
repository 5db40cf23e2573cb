import { z } from 'zod';
import { LOCALES } from '../../shared/i18n/locale.js';
import { requiredString } from '../../shared/validation.js';
import { nicknameField } from './nickname.js';

/** What a profile update changes: the nickname, the locale (null forgets it), or both; at least one. */
export const UpdateProfileSchema = z
  .object({
    nickname: nicknameField.optional(),
    locale: z.enum(LOCALES, { error: 'must be zh-CN, en or null' }).nullable().optional(),
  })
  .superRefine((input, ctx) => {
    if (input.nickname === undefined && input.locale === undefined) ctx.addIssue({ code: 'custom', path: ['nickname'], message: 'is required unless locale is given' });
  });
export type UpdateProfileInput = z.output<typeof UpdateProfileSchema>;

export const ChangePasswordSchema = z.object({
  currentPassword: z.string({ error: 'must be a string' }).max(1024, 'must be at most 1024 characters').nullish(),
  newPassword: requiredString(1024),
});
export type ChangePasswordInput = z.output<typeof ChangePasswordSchema>;

export const DeleteAccountSchema = z.object({ code: requiredString(16) });
