import { AppError, ErrorCode, type Message } from '../errors/app-error.js';

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
  /** Takes back one hit, e.g. when a message that counted could not be sent. */
  undo(key: string): Promise<void>;
  /** The counts of these windows now (0 where none is running), counting nothing. */
  counts(keys: string[]): Promise<number[]>;
  /**
   * In one atomic step: adds `member` to the set `key` unless the set already holds `limit` members;
   * the set lives `windowSeconds` from its first member. `admitted`: the member is in the set now.
   */
  admitMember(key: string, member: string, limit: number, windowSeconds: number): Promise<{ admitted: boolean; resetInSeconds: number }>;
  /**
   * In one atomic step: refuses the attempt as `locked` when a rule's failures reached its limit, as
   * `busy` when its failures and the attempts in flight (under `inFlightKey(rule)`) leave no room;
   * otherwise counts it in flight for every rule, a count that lives `inFlightSeconds` after the
   * last attempt admitted, so that the attempts of a crashed process do not stay in it for long.
   */
  admitAttempt(rules: Rule[], inFlightSeconds: number): Promise<Admission>;
  /** In one atomic step: a failure more in each rule's window and an attempt fewer in flight. */
  failAttempt(rules: Rule[]): Promise<void>;
  /** An attempt fewer in flight for each rule, in rule order. */
  releaseAttempt(rules: Rule[]): Promise<void>;
}

/**
 * `rule`: the index of the rule that refused; `resetInSeconds`: until the window of the rule whose
 * failures reached its limit ends.
 */
export type Admission = { outcome: 'admitted' } | { outcome: 'busy'; rule: number } | { outcome: 'locked'; rule: number; resetInSeconds: number };

/** Where the attempts in flight against a failure limit are counted. */
export function inFlightKey(rule: Rule): string {
  return `${rule.key}:in-flight`;
}

export interface Rule {
  /** The limit's name, the same for every key it counts under: `rate_limited_total{limit}` says it. */
  name: string;
  key: string;
  limit: number;
  windowSeconds: number;
}

export class RateLimiter {
  constructor(
    private readonly store: RateLimitStore,
    /** Told the name of the limit behind each refusal (metrics). */
    private readonly refused: (limit: string) => void = () => undefined,
  ) {}

  /**
   * Counts one hit against each rule in order and stops at the first rule over its limit, so a
   * request refused by an early rule does not use up the later ones.
   */
  async consume(rules: Rule[], message: Message): Promise<void> {
    if (rules.length > 1 && this.store.hitInOrder && new Set(rules.map((r) => r.key)).size === rules.length) {
      const states = await this.store.hitInOrder(rules);
      states.forEach((state, i) => {
        if (state.count > rules[i]!.limit) throw this.refuse(rules[i]!, message, state.resetInSeconds);
      });
      return;
    }
    for (const rule of rules) {
      const state = await this.store.hit(rule.key, rule.windowSeconds);
      if (state.count > rule.limit) throw this.refuse(rule, message, state.resetInSeconds);
    }
  }

  undo(rules: Rule[]): Promise<void[]> {
    return Promise.all(rules.map((r) => this.store.undo(r.key)));
  }

  /** One more in the window of `key` (opened for `windowSeconds` by the first); returns the window. */
  add(key: string, windowSeconds: number): Promise<WindowState> {
    return this.store.hit(key, windowSeconds);
  }

  /** Takes back one `add` to the window of `key`. */
  remove(key: string): Promise<void> {
    return this.store.undo(key);
  }

  /** The counts of these windows now, counting nothing. */
  counts(keys: string[]): Promise<number[]> {
    return this.store.counts(keys);
  }

  /**
   * Lets `member` into the set of `rule.key` (at most `rule.limit` distinct members per window);
   * RATE_LIMITED with `message` when it is not in the set and the set is full.
   */
  async admitMember(rule: Rule, member: string, message: Message): Promise<void> {
    const { admitted, resetInSeconds } = await this.store.admitMember(rule.key, member, rule.limit, rule.windowSeconds);
    if (!admitted) throw this.refuse(rule, message, resetInSeconds);
  }

  /**
   * Failure limits that hold while attempts run in parallel. Each rule keeps two counts: failures in
   * its window, and attempts in flight (admitted, not yet judged). An attempt is admitted only when
   * failures + in flight + 1 <= limit for every rule, read and counted in one atomic step; it then
   * either fails (one step: failures + 1, in flight - 1) or is released (in flight - 1). No step raises
   * failures + in flight above the limit, so failures, which count only judged wrong attempts, never
   * exceed it either: at most `limit` wrong attempts are judged per window, however many run at once
   * on however many instances. The bound assumes no attempt stays in flight longer than
   * IN_FLIGHT_SECONDS without another being admitted for the rule; past that its count lapses.
   * Refusals count nowhere. Once failures reach the limit the answer is `messages.locked` until the
   * window ends; while attempts in flight fill the room it is `messages.busy`, to retry in a second.
   */
  private async admitAttempt(rules: Rule[], messages: { locked: Message; busy: Message }): Promise<void> {
    const admission = await this.store.admitAttempt(rules, IN_FLIGHT_SECONDS);
    switch (admission.outcome) {
      case 'admitted':
        return;
      case 'busy':
        throw this.refuse(rules[admission.rule]!, messages.busy, BUSY_RETRY_SECONDS);
      case 'locked':
        throw this.refuse(rules[admission.rule]!, messages.locked, admission.resetInSeconds);
    }
  }

  /**
   * An attempt against failure limits from admission to verdict: admitted (admitAttempt), judged by
   * `judge`, then failed when it says `false` (a wrong secret) or released when it says `true` or
   * `undefined` (right, or not judged: what it was aimed at is gone), and released when it throws.
   * Returns the verdict.
   */
  async attempt(rules: Rule[], messages: { locked: Message; busy: Message }, judge: () => Promise<boolean | undefined>): Promise<boolean | undefined> {
    await this.admitAttempt(rules, messages);
    let verdict: boolean | undefined;
    try {
      verdict = await judge();
    } catch (error) {
      await this.releaseAttempt(rules).catch(() => undefined); // the original error is the one to report
      throw error;
    }
    await (verdict === false ? this.failAttempt(rules) : this.releaseAttempt(rules));
    return verdict;
  }

  private refuse(rule: Rule, message: Message, retryAfter: number): AppError {
    this.refused(rule.name);
    return rateLimited(message, retryAfter);
  }

  /** The admitted attempt was wrong: it counts as a failure from now on. */
  private failAttempt(rules: Rule[]): Promise<void> {
    return this.store.failAttempt(rules);
  }

  /** The admitted attempt was right (or was not judged): it counts nowhere. */
  private releaseAttempt(rules: Rule[]): Promise<void> {
    return this.store.releaseAttempt(rules);
  }
}

/** Far longer than a comparison takes, short enough that a crash's attempts in flight soon lapse. */
const IN_FLIGHT_SECONDS = 60;
/** Attempts in flight are judged within a fraction of a second. */
const BUSY_RETRY_SECONDS = 1;

function rateLimited(message: Message, retryAfter: number): AppError {
  return new AppError(ErrorCode.RATE_LIMITED, message, { retryAfter: Math.max(1, Math.ceil(retryAfter)) });
}
