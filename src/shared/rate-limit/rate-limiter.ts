import { AppError, ErrorCode } from '../errors/app-error.js';

export interface WindowState {
  /** Hits in the current window, this one included. */
  count: number;
  /** Seconds until the window resets. */
  resetInSeconds: number;
}

/** Fixed-window counters kept in a store shared by every instance of the service. */
export interface RateLimitStore {
  hit(key: string, windowSeconds: number): Promise<WindowState>;
  /**
   * Optional: `hit` for each rule in order, stopping after the first rule over its limit, in one
   * round trip; returns the states of the rules it hit. Keys must be distinct.
   */
  hitInOrder?(rules: Rule[]): Promise<WindowState[]>;
  peek(key: string): Promise<WindowState>;
  /** Takes back one hit, e.g. when a reserved login attempt turned out to succeed. */
  undo(key: string): Promise<void>;
  reset(key: string): Promise<void>;
}

export interface Rule {
  key: string;
  limit: number;
  windowSeconds: number;
}

export class RateLimiter {
  constructor(private readonly store: RateLimitStore) {}

  /**
   * Counts one hit against each rule in order and stops at the first rule over its limit, so a
   * request refused by an early rule does not use up the later ones.
   */
  async consume(rules: Rule[], message: string): Promise<void> {
    if (rules.length > 1 && this.store.hitInOrder && new Set(rules.map((r) => r.key)).size === rules.length) {
      const states = await this.store.hitInOrder(rules);
      states.forEach((state, i) => {
        if (state.count > rules[i]!.limit) throw rateLimited(message, state.resetInSeconds);
      });
      return;
    }
    for (const rule of rules) {
      const state = await this.store.hit(rule.key, rule.windowSeconds);
      if (state.count > rule.limit) throw rateLimited(message, state.resetInSeconds);
    }
  }

  /** Refuses without counting when any rule has already reached its limit. */
  async check(rules: Rule[], message: string): Promise<void> {
    for (const rule of rules) {
      const state = await this.store.peek(rule.key);
      if (state.count >= rule.limit) throw rateLimited(message, state.resetInSeconds);
    }
  }

  undo(rules: Rule[]): Promise<void[]> {
    return Promise.all(rules.map((r) => this.store.undo(r.key)));
  }
}

function rateLimited(message: string, retryAfter: number): AppError {
  return new AppError(ErrorCode.RATE_LIMITED, message, { retryAfter: Math.max(1, Math.ceil(retryAfter)) });
}
