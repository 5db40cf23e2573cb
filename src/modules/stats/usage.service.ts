import { AppError, ErrorCode, msg, type Message } from '../../shared/errors/app-error.js';
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
    const invalid = (field: string, reason: Message) =>
      new AppError(ErrorCode.VALIDATION_FAILED, msg('usage.invalid', { field, reason }), { fields: { [field]: reason } });
    const latest = Date.now() + CLOCK_SKEW_MS;
    if (joinedAt.getTime() > latest) throw invalid('joinedAt', msg('usage.reason.future'));
    if (leftAt.getTime() > latest) throw invalid('leftAt', msg('usage.reason.future'));
    if (leftAt < joinedAt) throw invalid('leftAt', msg('usage.reason.beforeJoin'));
    if (leftAt.getTime() - joinedAt.getTime() > MAX_SPAN_MS) throw invalid('leftAt', msg('usage.reason.tooLong'));
    const minutes = Math.floor((leftAt.getTime() - joinedAt.getTime()) / 60_000);
    const known = await this.stats.record(report, minutes);
    if (!known) throw invalid('userId', msg('usage.reason.unknownUser'));
  }
}
