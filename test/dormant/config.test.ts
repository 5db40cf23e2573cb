// PHONE_DORMANT_DAYS: the days unused after which a sign-in by the phone alone asks a second proof.
import { describe, expect, it } from '@jest/globals';
import { loadConfig } from '../../src/config/config.js';

describe('PHONE_DORMANT_DAYS', () => {
  it('is 365 by default, takes whole days from 0 (the rule off) to 3650', () => {
    expect(loadConfig({}).phoneDormantDays).toBe(365);
    expect(loadConfig({ PHONE_DORMANT_DAYS: '0' }).phoneDormantDays).toBe(0);
    expect(loadConfig({ PHONE_DORMANT_DAYS: '3650' }).phoneDormantDays).toBe(3650);
  });

  it.each(['-1', '3651', '1.5', 'year'])('refuses PHONE_DORMANT_DAYS=%j, naming it', (value) => {
    expect(() => loadConfig({ PHONE_DORMANT_DAYS: value })).toThrow(/PHONE_DORMANT_DAYS/);
  });
});
