import { describe, expect, it } from '@jest/globals';
import { AppError } from '../../src/shared/errors/app-error.js';
import { assertPasswordPolicy } from '../../src/shared/password/password-policy.js';
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
