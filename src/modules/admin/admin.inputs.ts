import { z } from 'zod';
import { requiredString } from '../../shared/validation.js';

/** 1-500 characters once trimmed (the service checks the trimmed length, for GraphQL too). */
export const BlockUserSchema = z.object({ reason: requiredString(500) });
