import { z } from 'zod';
import { requiredString } from '../../shared/validation.js';

const timestamp = z.iso.datetime({ offset: true, message: 'must be an ISO-8601 timestamp' }).transform((v) => new Date(v));

/** A usage report of the meeting service: one participation of one user in one meeting. */
export const MeetingUsageSchema = z.object({
  userId: z.uuid({ message: 'must be a user id (UUID)' }),
  // PostgreSQL text cannot hold NUL: without this check such an id is a 500 instead of a 400.
  meetingId: requiredString(128).min(1, 'must not be empty').refine((v) => !v.includes('\u0000'), 'must not contain NUL characters'),
  role: z.enum(['host', 'participant'], { error: 'must be host or participant' }),
  joinedAt: timestamp,
  leftAt: timestamp,
});
export type MeetingUsageInput = z.output<typeof MeetingUsageSchema>;
