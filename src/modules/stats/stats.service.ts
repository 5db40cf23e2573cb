import type { AccountService } from '../account/account.service.js';
import type { SessionService } from '../session/session.service.js';
import type { StatsRepository } from './stats.repository.js';

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

const DAY_MS = 86400_000;

/**
 * Personal statistics: the account's own figures, its live sessions, and the meeting figures kept
 * up to date by UsageService (all-time totals, the last 30 days aggregated from an index), read at
 * once. No report row reaches the application.
 */
export class StatsService {
  constructor(
    private readonly accounts: AccountService,
    private readonly sessions: SessionService,
    private readonly stats: StatsRepository,
  ) {}

  async forUser(userId: string): Promise<UserStats> {
    const [activity, activeSessions, meetings] = await Promise.all([
      this.accounts.activity(userId),
      this.sessions.countLiveListed(userId),
      this.stats.figures(userId),
    ]);
    return {
      loginCount: activity.loginCount,
      lastLoginAt: activity.lastLoginAt,
      memberSince: activity.memberSince,
      daysSinceRegistration: Math.floor((Date.now() - activity.memberSince.getTime()) / DAY_MS),
      activeSessions,
      meetingsHosted: meetings.meetingsHosted,
      meetingsJoined: meetings.meetingsJoined,
      totalMeetingMinutes: meetings.totalMinutes,
      hostedMeetingMinutes: meetings.hostedMinutes,
      averageMeetingMinutes: meetings.meetings === 0 ? 0 : Math.round((meetings.totalMinutes / meetings.meetings) * 100) / 100,
      lastMeetingAt: meetings.lastMeetingAt,
      last30Days: { meetings: meetings.recentMeetings, minutes: meetings.recentMinutes },
    };
  }
}
