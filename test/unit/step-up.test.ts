import { describe, expect, it } from '@jest/globals';
import { provesRecentSecondFactor } from '../../src/modules/auth/step-up.js';

const NOW = Date.UTC(2026, 10, 26, 12, 0, 0);
const ago = (seconds: number) => new Date(NOW - seconds * 1000);

describe('provesRecentSecondFactor', () => {
  it('accepts a second factor or a passkey proven within the last 10 minutes', () => {
    for (const amr of [['pwd', 'otp', 'mfa'], ['sms', 'otp', 'mfa'], ['hwk'], ['hwk', 'otp', 'mfa']]) {
      for (const seconds of [0, 599, 600]) expect({ amr, seconds, recent: provesRecentSecondFactor({ amr, authTime: ago(seconds) }, NOW) }).toEqual({ amr, seconds, recent: true });
    }
  });

  it('refuses a first factor alone, however recent, and any factor proven more than 10 minutes ago', () => {
    for (const amr of [[], ['pwd'], ['sms'], ['otp']]) expect(provesRecentSecondFactor({ amr, authTime: ago(0) }, NOW)).toBe(false);
    for (const amr of [['pwd', 'otp', 'mfa'], ['hwk']]) expect(provesRecentSecondFactor({ amr, authTime: ago(601) }, NOW)).toBe(false);
  });

  it('refuses a token without auth_time (issued before the claim existed)', () => {
    expect(provesRecentSecondFactor({ amr: ['pwd', 'otp', 'mfa'] }, NOW)).toBe(false);
  });
});
