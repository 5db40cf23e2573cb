import { z } from 'zod';
import { requiredString } from '../../shared/validation.js';

/**
 * A TOTP code (six digits) or a recovery code (`abcde-fghij`, spaces and case free); room for a code
 * typed with spaces, and no more. What it is is decided by the service.
 */
export const mfaCode = requiredString(32);

export const MfaCodeSchema = z.object({ code: mfaCode });
