import type { AccountService } from '../account/account.service.js';
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
    private readonly stats: StatsRepository,
  ) {}

  async forUser(userId: string): Promise<UserStats> {
    const figures = await this.stats.summary(userId);
    if (!figures) {
      // No account: the account service answers a gone account as everywhere (UNAUTHENTICATED).
      await this.accounts.activity(userId);
      throw new Error(`the account ${userId} was not found for its statistics, and then was`);
    }
    return {
      loginCount: figures.loginCount,
      lastLoginAt: figures.lastLoginAt,
      memberSince: figures.memberSince,
      daysSinceRegistration: Math.floor((Date.now() - figures.memberSince.getTime()) / DAY_MS),
      activeSessions: figures.activeSessions,
      meetingsHosted: figures.meetingsHosted,
      meetingsJoined: figures.meetingsJoined,
      totalMeetingMinutes: figures.totalMinutes,
      hostedMeetingMinutes: figures.hostedMinutes,
      averageMeetingMinutes: figures.meetings === 0 ? 0 : Math.round((figures.totalMinutes / figures.meetings) * 100) / 100,
      lastMeetingAt: figures.lastMeetingAt,
      last30Days: { meetings: figures.recentMeetings, minutes: figures.recentMinutes },
    };
  }
}
