import { z } from 'zod';
import { requiredString } from '../../shared/validation.js';
import { nicknameField } from './nickname.js';

export const UpdateProfileSchema = z.object({ nickname: nicknameField });

export const ChangePasswordSchema = z.object({
  currentPassword: z.string({ error: 'must be a string' }).max(1024, 'must be at most 1024 characters').nullish(),
  newPassword: requiredString(1024),
});
export type ChangePasswordInput = z.output<typeof ChangePasswordSchema>;

export const DeleteAccountSchema = z.object({ code: requiredString(16) });
