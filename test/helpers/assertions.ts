// Assertions on the contract's shapes, shared by the REST and GraphQL suites: each names the
// transport in its failure message, as `{ transport, ... }` in the compared values.
import { expect } from '@jest/globals';

export type Transport = 'REST' | 'GraphQL';

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
}

/** Asserts the `User` shape of API.md, exactly (no extra field such as a password hash). */
export function expectUser(user: any, transport: Transport, expected: ExpectedUser = {}): void {
  expect({ transport, user }).toEqual({
    transport,
    user: {
      id: expect.stringMatching(UUID),
      phone: expect.stringMatching(E164),
      nickname: expect.any(String),
      avatarUrl: null,
      hasPassword: expect.any(Boolean),
      createdAt: expect.stringMatching(ISO_UTC),
      lastLoginAt: user?.lastLoginAt === null ? null : expect.stringMatching(ISO_UTC),
    },
  });
  expect({ transport, user }).toMatchObject({ transport, user: expected });
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
  expect({ transport, payload }).toEqual({
    transport,
    payload: {
      accessToken: expect.stringMatching(JWT),
      tokenType: 'Bearer',
      expiresIn: expected.expiresIn ?? 900,
      // 256 bits, base64url.
      refreshToken: expect.stringMatching(/^[\w-]{43,}$/),
      refreshExpiresIn: expected.refreshExpiresIn ?? 2592000,
      isNewUser: expected.isNewUser,
      user: expect.anything(),
    },
  });
  expectUser(payload.user, transport, expected.user);
  expect({ transport, lastLoginAt: payload.user.lastLoginAt }).toEqual({ transport, lastLoginAt: expect.stringMatching(ISO_UTC) });
}

/** Another code of the same length, differing from `code` in its last digit. */
export function wrongCode(code: string): string {
  return code.slice(0, -1) + String((Number(code.at(-1)) + 1) % 10);
}
