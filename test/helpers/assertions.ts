// Assertions on the contract's shapes, shared by the REST and GraphQL suites; a failure names the
// transport and the shape first.
import { expect } from '@jest/globals';

export type Transport = 'REST' | 'GraphQL';

/** Runs `check`, putting `label` at the head of the message of an assertion that fails in it. */
function labelled(label: string, check: () => void): void {
  try {
    check();
  } catch (error) {
    if (error instanceof Error) {
      const original = error.message;
      error.message = `${label}\n\n${original}`;
      // V8 builds the stack text when first read; if it was read already, it still holds the old message.
      if (error.stack && !error.stack.includes(label)) error.stack = error.stack.replace(original, error.message);
    }
    throw error;
  }
}

export const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/;
/** A UUID as PostgreSQL writes it (lower case). */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const E164 = /^\+[1-9]\d{6,14}$/;
const JWT = /^[\w-]+\.[\w-]+\.[\w-]+$/;

export interface ExpectedUser {
  id?: string;
  phone?: string;
  nickname?: string;
  hasPassword?: boolean;
  role?: string;
  locale?: string | null;
}

/** Asserts the `User` shape of API.md, exactly (no extra field such as a password hash). */
export function expectUser(user: any, transport: Transport, expected: ExpectedUser = {}): void {
  labelled(`${transport} User`, () => {
    expect(user).toEqual({
      id: expect.stringMatching(UUID),
      phone: expect.stringMatching(E164),
      nickname: expect.any(String),
      avatarUrl: null,
      hasPassword: expect.any(Boolean),
      role: expected.role ?? 'USER',
      locale: expected.locale ?? null,
      createdAt: expect.stringMatching(ISO_UTC),
      lastLoginAt: user?.lastLoginAt === null ? null : expect.stringMatching(ISO_UTC),
    });
    expect(user).toMatchObject(expected);
  });
}

export interface ExpectedAuthPayload {
  isNewUser: boolean;
  /** Seconds; the default TTLs (900 and 2592000) unless given. */
  expiresIn?: number;
  refreshExpiresIn?: number;
  user?: ExpectedUser;
}

/** Asserts the `AuthPayload` shape of API.md, exactly, with a signed-in user. */
export function expectAuthPayload(payload: any, transport: Transport, expected: ExpectedAuthPayload): void {
  labelled(`${transport} AuthPayload`, () => {
    expect(payload).toEqual({
      accessToken: expect.stringMatching(JWT),
      tokenType: 'Bearer',
      expiresIn: expected.expiresIn ?? 900,
      // 256 bits, base64url.
      refreshToken: expect.stringMatching(/^[\w-]{43,}$/),
      refreshExpiresIn: expected.refreshExpiresIn ?? 2592000,
      isNewUser: expected.isNewUser,
      user: expect.anything(),
    });
    // Signed in just now.
    expect(payload.user.lastLoginAt).toMatch(ISO_UTC);
  });
  expectUser(payload.user, transport, expected.user);
}

/** Another code of the same length, differing from `code` in its last digit. */
export function wrongCode(code: string): string {
  return code.slice(0, -1) + String((Number(code.at(-1)) + 1) % 10);
}
