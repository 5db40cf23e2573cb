import { isForeignKeyViolation, type Database } from '../../db/database.js';
import { accountActivitySource } from '../account/account.repository.js';
import { liveSessionCountOf } from '../session/session.repository.js';
import { MeetingUsage } from './meeting-usage.entity.js';
import type { MeetingUsageInput } from './usage.inputs.js';
import { UserMeetingRole } from './user-meeting-role.entity.js';
import { UserMeetingTotals } from './user-meeting-totals.entity.js';
import { UserMeeting } from './user-meeting.entity.js';

interface MeetingFigures {
  meetings: number;
  meetingsHosted: number;
  meetingsJoined: number;
  totalMinutes: number;
  hostedMinutes: number;
  lastMeetingAt: Date | null;
  recentMeetings: number;
  recentMinutes: number;
}

/** The account's sign-in activity and live sessions, with its meeting figures. */
export interface StatsSummary extends MeetingFigures {
  loginCount: number;
  lastLoginAt: Date | null;
  memberSince: Date;
  activeSessions: number;
}

/** The usage tables: `meeting_usage` (one row per reported stay), `user_meetings`, `user_meeting_roles`, `user_meeting_totals`. */
export class StatsRepository {
  private readonly sql: { addToTotals: string; summary: string };

  constructor(private readonly db: Database) {
    const t = db.names(UserMeetingTotals);
    const m = db.names(MeetingUsage);
    const a = accountActivitySource(db, 'u');
    const added = ['meetings', 'meetingsHosted', 'meetingsJoined', 'totalMinutes', 'hostedMinutes'] as const;
    this.sql = {
      // Counters: concurrent reports of one user each add their share.
      addToTotals: `insert into ${t.table} as t (${t.user}, ${added.map((k) => t[k]).join(', ')}, ${t.lastMeetingAt})
                    values ($1, $2, $3, $4, $5, $6, $7)
                    on conflict (${t.user}) do update set
                      ${added.map((k) => `${t[k]} = t.${t[k]} + excluded.${t[k]}`).join(', ')},
                      ${t.lastMeetingAt} = greatest(t.${t.lastMeetingAt}, excluded.${t.lastMeetingAt})`,
      // One statement: the account's sign-in activity and live sessions (from their owners' sources),
      // the all-time totals, and the last 30 days aggregated from the (user, joined_at) covering index.
      // No row when the account does not exist.
      summary: `select ${a.columns}, ${liveSessionCountOf(db, '$1')} as "activeSessions",
                       coalesce(t.${t.meetings}, 0) as "meetings", coalesce(t.${t.meetingsHosted}, 0) as "meetingsHosted",
                       coalesce(t.${t.meetingsJoined}, 0) as "meetingsJoined", coalesce(t.${t.totalMinutes}, 0)::int as "totalMinutes",
                       coalesce(t.${t.hostedMinutes}, 0)::int as "hostedMinutes", t.${t.lastMeetingAt} as "lastMeetingAt",
                       recent.meetings as "recentMeetings", recent.minutes as "recentMinutes"
                  from ${a.from}
                 cross join (select count(distinct r.${m.meetingId})::int as meetings, coalesce(sum(r.${m.minutes}), 0)::int as minutes
                          from ${m.table} r
                         where r.${m.user} = $1 and r.${m.joinedAt} >= now() - interval '30 days') recent
                  left join ${t.table} t on t.${t.user} = $1
                 where ${a.id} = $1`,
    };
  }

  /**
   * Records one stay and adds it to the user's totals, in one transaction; a repeated report of the
   * same stay changes nothing. False when the user does not exist.
   */
  async record(report: MeetingUsageInput, minutes: number): Promise<boolean> {
    const { userId: user, meetingId, role, joinedAt, leftAt } = report;
    try {
      await this.db.transaction(async () => {
        const em = this.db.em();
        const stay = await em.qb(MeetingUsage).insert({ user, meetingId, role, joinedAt, leftAt, minutes }).onConflict(['user', 'meetingId', 'joinedAt']).ignore().execute('run');
        if (stay.affectedRows === 0) return;
        // Distinct meetings count once per user, and once per user and role, through these primary keys.
        const meeting = await em.qb(UserMeeting).insert({ user, meetingId }).onConflict(['user', 'meetingId']).ignore().execute('run');
        const asRole = await em.qb(UserMeetingRole).insert({ user, meetingId, role }).onConflict(['user', 'meetingId', 'role']).ignore().execute('run');
        const newMeeting = meeting.affectedRows > 0;
        const newRole = asRole.affectedRows > 0;
        const host = role === 'host';
        await this.db.rows(this.sql.addToTotals, [
          user,
          newMeeting ? 1 : 0,
          newRole && host ? 1 : 0,
          newRole && !host ? 1 : 0,
          minutes,
          host ? minutes : 0,
          joinedAt,
        ]);
      });
      return true;
    } catch (error) {
      if (isForeignKeyViolation(error)) return false;
      throw error;
    }
  }

  /** The figures of the personal statistics, in one statement; undefined when the account does not exist. */
  async summary(userId: string): Promise<StatsSummary | undefined> {
    type Row = Omit<StatsSummary, 'lastMeetingAt' | 'lastLoginAt' | 'memberSince'> & { lastMeetingAt: Date | string | null; lastLoginAt: Date | string | null; memberSince: Date | string };
    const row = await this.db.one<Row>(this.sql.summary, [userId], 'stats_summary');
    if (!row) return undefined;
    // Timestamps come as the database writes them (the pool parses no dates).
    const at = (value: Date | string | null) => (value === null ? null : new Date(value));
    return { ...row, lastMeetingAt: at(row.lastMeetingAt), lastLoginAt: at(row.lastLoginAt), memberSince: new Date(row.memberSince) };
  }

}
