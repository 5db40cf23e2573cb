import { describe, expect, it } from '@jest/globals';
import { defaultNickname, normaliseNickname } from '../../src/modules/account/nickname.js';
import { parsePhone } from '../../src/shared/phone.js';

describe('phone numbers', () => {
  it('accepts E.164 and national form of the default region, returns E.164', () => {
    expect(parsePhone('+8613800138000', 'CN').e164).toBe('+8613800138000');
    expect(parsePhone('13800138000', 'CN').e164).toBe('+8613800138000');
    expect(parsePhone(' 138 0013 8000 ', 'CN').e164).toBe('+8613800138000');
    expect(parsePhone('+14155552671', 'CN').e164).toBe('+14155552671');
  });

  it.each(['', '123', 'not a phone', '+86123', '01062345678', '+8601062345678', '13800138000000'])('refuses %p as INVALID_PHONE', (input) => {
    expect(() => parsePhone(input, 'CN')).toThrow(expect.objectContaining({ code: 'INVALID_PHONE' }));
  });
});

describe('nicknames', () => {
  it('defaults to User and the last four digits', () => {
    expect(defaultNickname('+8613800138000')).toBe('User8000');
  });

  it('trims and accepts 1 to 32 characters, emoji counted as one', () => {
    expect(normaliseNickname('  Ada  ')).toBe('Ada');
    expect(normaliseNickname('Zoe\u0308')).toBe('Zo\u00eb');
    expect(normaliseNickname('👩‍💻'.repeat(32))).toBe('👩‍💻'.repeat(32));
  });

  it.each([
    ['empty', ''],
    ['whitespace', '   '],
    ['33 characters', 'a'.repeat(33)],
    ['a control character', 'Ada\u0007'],
    ['a newline', 'Ada\nLovelace'],
  ])('refuses %s as VALIDATION_FAILED', (_name, input) => {
    expect(() => normaliseNickname(input)).toThrow(expect.objectContaining({ code: 'VALIDATION_FAILED' }));
  });
});
