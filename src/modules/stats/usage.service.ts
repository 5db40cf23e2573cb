import type { Sql } from '../../db/sql.js';
import { AppError, ErrorCode } from '../../shared/errors/app-error.js';
import type { MeetingUsageInput } from './usage.inputs.js';

const MAX_SPAN_MS = 24 * 3600_000;
/** Clocks of two services disagree a little; a report this far ahead of ours is still accepted. */
const CLOCK_SKEW_MS = 60_000;

/** Records meeting usage reported by the meeting service; idempotent per (user, meeting, joinedAt). */
export class UsageService {
  constructor(private readonly sql: Sql) {}

  async record(report: MeetingUsageInput): Promise<void> {
    const { joinedAt, leftAt } = report;
    const invalid = (field: string, reason: string) =>
      new AppError(ErrorCode.VALIDATION_FAILED, `${field} ${reason}`, { fields: { [field]: reason } });
    const latest = Date.now() + CLOCK_SKEW_MS;
    if (joinedAt.getTime() > latest) throw invalid('joinedAt', 'must not be in the future');
    if (leftAt.getTime() > latest) throw invalid('leftAt', 'must not be in the future');
    if (leftAt < joinedAt) throw invalid('leftAt', 'must not be before joinedAt');
    if (leftAt.getTime() - joinedAt.getTime() > MAX_SPAN_MS) throw invalid('leftAt', 'must be at most 24 hours after joinedAt');
    const minutes = Math.floor((leftAt.getTime() - joinedAt.getTime()) / 60_000);
    const known = await this.sql.transaction(async (tx) => {
      const user = await tx.one('select 1 as ok from users where id = $1 for share', [report.userId]);
      if (!user) return false;
      // A retried report hits the primary key and changes nothing.
      const inserted = await tx.one(
        `insert into meeting_usage (user_id, meeting_id, role, joined_at, left_at, minutes) values ($1, $2, $3, $4, $5, $6)
         on conflict (user_id, meeting_id, joined_at) do nothing returning 1 as ok`,
        [report.userId, report.meetingId, report.role, joinedAt, leftAt, minutes],
      );
      if (!inserted) return true;
      const newMeeting = await tx.one(
        'insert into user_meetings (user_id, meeting_id) values ($1, $2) on conflict do nothing returning 1 as ok',
        [report.userId, report.meetingId],
      );
      const newRole = await tx.one(
        'insert into user_meeting_roles (user_id, meeting_id, role) values ($1, $2, $3) on conflict do nothing returning 1 as ok',
        [report.userId, report.meetingId, report.role],
      );
      const host = report.role === 'host';
      await tx.rows(
        `insert into user_meeting_totals as t (user_id, meetings, meetings_hosted, meetings_joined, total_minutes, hosted_minutes, last_meeting_at)
         values ($1, $2, $3, $4, $5, $6, $7)
         on conflict (user_id) do update set
           meetings = t.meetings + excluded.meetings,
           meetings_hosted = t.meetings_hosted + excluded.meetings_hosted,
           meetings_joined = t.meetings_joined + excluded.meetings_joined,
           total_minutes = t.total_minutes + excluded.total_minutes,
           hosted_minutes = t.hosted_minutes + excluded.hosted_minutes,
           last_meeting_at = greatest(t.last_meeting_at, excluded.last_meeting_at)`,
        [
          report.userId,
          newMeeting ? 1 : 0,
          newRole && host ? 1 : 0,
          newRole && !host ? 1 : 0,
          minutes,
          host ? minutes : 0,
          joinedAt,
        ],
      );
      return true;
    });
    if (!known) throw invalid('userId', 'is not a known user');
  }
}
