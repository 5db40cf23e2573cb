import { AppError, ErrorCode } from '../../shared/errors/app-error.js';
import type { StatsRepository } from './stats.repository.js';
import type { MeetingUsageInput } from './usage.inputs.js';

const MAX_SPAN_MS = 24 * 3600_000;
/** Clocks of two services disagree a little; a report this far ahead of ours is still accepted. */
const CLOCK_SKEW_MS = 60_000;

/** Records meeting usage reported by the meeting service; idempotent per (user, meeting, joinedAt). */
export class UsageService {
  constructor(private readonly stats: StatsRepository) {}

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
    const known = await this.stats.record(report, minutes);
    if (!known) throw invalid('userId', 'is not a known user');
  }
}
