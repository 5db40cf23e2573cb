import { z } from 'zod';
import { requiredString } from '../../shared/validation.js';
import { Role } from '../account/role.js';

/** 1-500 characters once trimmed (the service checks the trimmed length, for GraphQL too). */
export const BlockUserSchema = z.object({ reason: requiredString(500) });

export const SetRoleSchema = z.object({ role: z.enum(Role, { error: `must be one of ${Object.values(Role).join(', ')}` }) });
