import { describe, expect, it } from '@jest/globals';
import { AppError } from '../../src/shared/errors/app-error.js';
import { assertPasswordPolicy, hashedPassword, judgedPassword } from '../../src/shared/password/password-policy.js';
import { parsePhone } from '../../src/shared/phone.js';

const phone = parsePhone('+8613800138000', 'CN');

function reason(password: string): string | undefined {
  try {
    assertPasswordPolicy(password, phone);
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('WEAK_PASSWORD');
    return (error as AppError).fields?.password;
  }
}

describe('password policy', () => {
  it('accepts 8 characters with no composition rules', () => {
    expect(reason('tulipsun')).toBeUndefined();
  });

  it('counts characters, not bytes, for the minimum', () => {
    expect(reason('密码密码密码密')).toMatch(/at least 8/); // 7 characters, 21 bytes
    expect(reason('长城长城故宫故宫')).toBeUndefined();
  });

  it('accepts exactly 72 bytes of UTF-8 and refuses 73', () => {
    expect(reason('€'.repeat(24))).toBeUndefined(); // 72 bytes
    expect(reason(`${'€'.repeat(24)}a`)).toMatch(/72 bytes/);
  });

  it('refuses common passwords regardless of case', () => {
    expect(reason('password')).toMatch(/common/);
    expect(reason('PASSWORD')).toMatch(/common/);
    expect(reason('qwertyuiop')).toMatch(/common/);
  });

  it("refuses the phone's own digits in any usual form", () => {
    expect(reason('13800138000')).toMatch(/phone/);
    expect(reason('8613800138000')).toMatch(/phone/);
    expect(reason('+86 138 0013 8000')).toMatch(/phone/);
  });
});

describe('password normalisation (NFKC, format characters removed, trimmed)', () => {
  it('refuses a password of only whitespace or invisible characters', () => {
    for (const blank of [' '.repeat(8), '\t'.repeat(8), '\u00a0'.repeat(8), '\u3000'.repeat(8), '\u200b'.repeat(8), ' \t\u00a0\u2003\u3000\ufeff\u200b\n']) {
      expect(reason(blank)).toMatch(/only spaces/);
    }
  });

  it('refuses a listed password padded with spaces, tabs or zero-width characters, or written in full-width letters', () => {
    for (const padded of [' password', 'password ', '\tpassword\t', '\u00a0password', 'password\u200b', '\ufeffpassword', 'pass\u200dword', 'pass\u00adword', 'ｐａｓｓｗｏｒｄ', 'ＱＷＥＲＴＹＵＩＯＰ']) {
      expect(reason(padded)).toMatch(/common/);
    }
  });

  it('counts the minimum length without the padding', () => {
    expect(reason('  tulips  ')).toMatch(/at least 8/);
    expect(reason(`tulips${'\u200b'.repeat(4)}`)).toMatch(/at least 8/);
  });

  it('counts the maximum in bytes of the normalised form, the one hashed', () => {
    expect(reason('Ａ'.repeat(72))).toBeUndefined(); // 216 bytes typed, 72 hashed
    expect(reason('Ａ'.repeat(73))).toMatch(/72 bytes/);
  });

  it("refuses the phone's digits in full-width digits", () => {
    expect(reason('１３８００１３８０００')).toMatch(/phone/);
  });

  it('judges the password without invisible padding', () => {
    expect(judgedPassword('\ufeff ｐａｓｓ\u200bword\u00a0')).toBe('password');
    expect(judgedPassword('caf\u200be\u0301 noir')).toBe('caf\u00e9 noir');
    // Inner spaces are part of the password; a no-break space is a space.
    expect(judgedPassword(' correct\u00a0horse battery ')).toBe('correct horse battery');
  });

  it('hashes NFKC: the same password typed on another keyboard is one password, a trailing space still counts', () => {
    expect(hashedPassword('ｖｉｏｌｅｔ－ｈａｒｂｏｒ－４２')).toBe('violet-harbor-42');
    expect(hashedPassword('cafe\u0301 au lait')).toBe(hashedPassword('caf\u00e9 au lait'));
    expect(hashedPassword('violet-harbor-42 ')).toBe('violet-harbor-42 ');
  });
});
