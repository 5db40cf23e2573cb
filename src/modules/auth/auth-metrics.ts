/**
 * What sign-ins and SMS sends tell monitoring. The metrics edge (src/shared/metrics) implements it
 * when METRICS_PORT is on; the use cases never see prom-client.
 */
export interface AuthMetrics {
  /** `outcome`: `success`, or the error code the caller got. */
  signIn(method: SignInMetricMethod, outcome: string): void;
  /**
   * `country`: the ISO region of the phone. `outcome`: `sent` (the provider took it), `failed` (surely
   * not sent), `uncertain` (a timeout or an unknown failure: it may have gone out), `budget_spent`
   * (the region's daily budget refused it before the provider was asked), `breaker_open` (the
   * region's conversion breaker refused it).
   */
  sms(country: string, outcome: SmsOutcome): void;
}

export type SignInMetricMethod = 'code' | 'password' | 'passkey' | 'oidc' | 'refresh' | 'mfa' | 'second-proof';
export type SmsOutcome = 'sent' | 'failed' | 'uncertain' | 'budget_spent' | 'breaker_open';

/** Metrics off: nothing is counted. */
export const NO_AUTH_METRICS: AuthMetrics = { signIn: () => undefined, sms: () => undefined };
