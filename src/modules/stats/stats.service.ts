import type { Sql } from '../../db/sql.js';
import { AppError, ErrorCode } from '../../shared/errors/app-error.js';

export interface UserStats {
  loginCount: number;
  lastLoginAt: Date | null;
  memberSince: Date;
  daysSinceRegistration: number;
  activeSessions: number;
  meetingsHosted: number;
  meetingsJoined: number;
  totalMeetingMinutes: number;
  hostedMeetingMinutes: number;
  averageMeetingMinutes: number;
  lastMeetingAt: Date | null;
  last30Days: { meetings: number; minutes: number };
}

interface StatsRow {
  login_count: number;
  last_login_at: Date | string | null;
  created_at: Date | string;
  days: number;
  active_sessions: number;
  meetings: number;
  meetings_hosted: number;
  meetings_joined: number;
  total_minutes: number;
  hosted_minutes: number;
  last_meeting_at: Date | string | null;
  recent_meetings: number;
  recent_minutes: number;
}

/**
 * One statement: the account's own figures, the all-time meeting totals kept up to date by
 * UsageService, and the last 30 days aggregated from the (user_id, joined_at) index. No report row
 * reaches the application.
 */
const STATS_SQL = `
  select u.login_count, u.last_login_at, u.created_at,
         floor(extract(epoch from now() - u.created_at) / 86400)::int as days,
         (select count(*)::int from sessions s
           where s.user_id = u.id and s.revoked_at is null and s.expires_at > now()) as active_sessions,
         coalesce(t.meetings, 0) as meetings,
         coalesce(t.meetings_hosted, 0) as meetings_hosted,
         coalesce(t.meetings_joined, 0) as meetings_joined,
         coalesce(t.total_minutes, 0)::int as total_minutes,
         coalesce(t.hosted_minutes, 0)::int as hosted_minutes,
         t.last_meeting_at,
         recent.meetings as recent_meetings,
         recent.minutes as recent_minutes
    from users u
    left join user_meeting_totals t on t.user_id = u.id
    cross join lateral (
      select count(distinct r.meeting_id)::int as meetings, coalesce(sum(r.minutes), 0)::int as minutes
        from meeting_usage r
       where r.user_id = u.id and r.joined_at >= now() - interval '30 days'
    ) recent
   where u.id = $1`;

export class StatsService {
  constructor(private readonly sql: Sql) {}

  async forUser(userId: string): Promise<UserStats> {
    const row = await this.sql.one<StatsRow>(STATS_SQL, [userId], 'user_stats');
    if (!row) throw new AppError(ErrorCode.UNAUTHENTICATED, 'The account no longer exists');
    return {
      loginCount: row.login_count,
      lastLoginAt: row.last_login_at === null ? null : new Date(row.last_login_at),
      memberSince: new Date(row.created_at),
      daysSinceRegistration: row.days,
      activeSessions: row.active_sessions,
      meetingsHosted: row.meetings_hosted,
      meetingsJoined: row.meetings_joined,
      totalMeetingMinutes: row.total_minutes,
      hostedMeetingMinutes: row.hosted_minutes,
      averageMeetingMinutes: row.meetings === 0 ? 0 : Math.round((row.total_minutes / row.meetings) * 100) / 100,
      lastMeetingAt: row.last_meeting_at === null ? null : new Date(row.last_meeting_at),
      last30Days: { meetings: row.recent_meetings, minutes: row.recent_minutes },
    };
  }
}
