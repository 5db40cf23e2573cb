import { z } from 'zod';
import { uuidField } from '../../shared/ids.js';
import { hasControlCharacters } from '../../shared/text.js';
import { requiredString } from '../../shared/validation.js';

const timestamp = z.iso.datetime({ offset: true, message: 'must be an ISO-8601 timestamp' }).transform((v) => new Date(v));

/** A usage report of the meeting service: one participation of one user in one meeting. */
export const MeetingUsageSchema = z.object({
  userId: uuidField('must be a user id (UUID)'),
  // The meeting service's own id, opaque here (taken as written, spaces included): 1-128 characters of text.
  meetingId: requiredString(128)
    .min(1, 'must not be empty')
    .refine((v) => !hasControlCharacters(v), 'must not contain control characters'),
  role: z.enum(['host', 'participant'], { error: 'must be host or participant' }),
  joinedAt: timestamp,
  leftAt: timestamp,
});
export type MeetingUsageInput = z.output<typeof MeetingUsageSchema>;
