import { z } from 'zod';
import { requiredString } from '../../shared/validation.js';

const timestamp = z.iso.datetime({ offset: true, message: 'must be an ISO-8601 timestamp' }).transform((v) => new Date(v));

/** A usage report of the meeting service: one participation of one user in one meeting. */
export const MeetingUsageSchema = z.object({
  userId: z.uuid({ message: 'must be a user id (UUID)' }),
  meetingId: requiredString(128).min(1, 'must not be empty'),
  role: z.enum(['host', 'participant'], { error: 'must be host or participant' }),
  joinedAt: timestamp,
  leftAt: timestamp,
});
export type MeetingUsageInput = z.output<typeof MeetingUsageSchema>;
