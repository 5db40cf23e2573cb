import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  ChangePasswordDocument,
  DeleteAccountDocument,
  LoginDocument,
  LoginWithPasswordDocument,
  MeDocument,
  MySessionsDocument,
  RegisterDocument,
  ResetPasswordDocument,
  RevokeSessionDocument,
  SendCodeDocument,
  UpdateProfileDocument,
} from '../generated/graphql.js';
import { newPhone, useTestServer } from '../helpers/server.js';
import { wrongCode } from '../helpers/assertions.js';
import { GOOD_PASSWORD, dataOf, errorOf, expectRetryAfter, gqlCode, gqlLogin, gqlRegister } from '../graphql/support.js';
import { ME, NEW_PASSWORD, SERVER_ENV, countRows, expectAccessWorks, expectGqlRefreshRefused, sessionIdOf, uploadAvatar } from './support.js';

const t = useTestServer(SERVER_ENV);

const gqlPasswordLogin = async (phone: string, password: string, userAgent?: string) =>
  t.http.gql(LoginWithPasswordDocument, { input: { phone, password } }, { headers: userAgent ? { 'user-agent': userAgent } : {} });
const anotherSession = async (phone: string, userAgent?: string) => dataOf(await gqlPasswordLogin(phone, GOOD_PASSWORD, userAgent)).loginWithPassword;
async function expectPassword(phone: string, password: string, accepted: boolean): Promise<void> {
  const res = await gqlPasswordLogin(phone, password);
  if (accepted) dataOf(res);
  else errorOf(res, 'INVALID_CREDENTIALS');
}
/** me and refreshToken both answer UNAUTHENTICATED for this session. */
async function expectEnded(session: { accessToken: string; refreshToken: string }): Promise<void> {
  errorOf(await t.http.gql(MeDocument, {}, { token: session.accessToken }), 'UNAUTHENTICATED');
  await expectGqlRefreshRefused(t, session.refreshToken);
}
const fieldsOf = (error: { extensions?: { fields?: Record<string, string> } }) => Object.keys(error.extensions?.fields ?? {});

describe('resetPassword', () => {
  it('sets the password, answers true and revokes every session; old password refused, new accepted', async () => {
    const user = await gqlRegister(t);
    const second = await anotherSession(user.phone);
    const code = await gqlCode(t, user.phone, 'RESET_PASSWORD');
    expect(dataOf(await t.http.gql(ResetPasswordDocument, { input: { phone: user.phone, code, newPassword: NEW_PASSWORD } }))).toEqual({ resetPassword: true });
    await expectEnded(user);
    await expectEnded(second);
    await expectPassword(user.phone, GOOD_PASSWORD, false);
    await expectPassword(user.phone, NEW_PASSWORD, true);
  });

  it('refuses a weak password with WEAK_PASSWORD and the code stays usable', async () => {
    const user = await gqlRegister(t);
    const code = await gqlCode(t, user.phone, 'RESET_PASSWORD');
    errorOf(await t.http.gql(ResetPasswordDocument, { input: { phone: user.phone, code, newPassword: 'password' } }), 'WEAK_PASSWORD');
    await expectAccessWorks(t, user);
    dataOf(await t.http.gql(ResetPasswordDocument, { input: { phone: user.phone, code, newPassword: NEW_PASSWORD } }));
  });

  it('answers sendCode for an unknown phone as for a known one, sends nothing, and resetPassword is INVALID_CODE', async () => {
    const user = await gqlRegister(t);
    const phone = newPhone();
    const known = dataOf(await t.http.gql(SendCodeDocument, { input: { phone: user.phone, purpose: 'RESET_PASSWORD' } }));
    const unknown = dataOf(await t.http.gql(SendCodeDocument, { input: { phone, purpose: 'RESET_PASSWORD' } }));
    expect(unknown).toEqual(known);
    expect((await t.outbox()).filter((m) => m.phone === phone)).toEqual([]);
    errorOf(await t.http.gql(ResetPasswordDocument, { input: { phone, code: '123456', newPassword: NEW_PASSWORD } }), 'INVALID_CODE');
  });

  it('refuses a login code and a delete-account code with INVALID_CODE', async () => {
    const user = await gqlRegister(t);
    for (const purpose of ['LOGIN', 'DELETE_ACCOUNT'] as const) {
      const code = await gqlCode(t, user.phone, purpose);
      errorOf(await t.http.gql(ResetPasswordDocument, { input: { phone: user.phone, code, newPassword: NEW_PASSWORD } }), 'INVALID_CODE');
    }
    await expectPassword(user.phone, GOOD_PASSWORD, true);
  });
});

describe('changePassword', () => {
  it('answers true, keeps the current session and revokes every other one; old password refused, new accepted', async () => {
    const user = await gqlRegister(t);
    const current = await anotherSession(user.phone);
    const input = { currentPassword: GOOD_PASSWORD, newPassword: NEW_PASSWORD };
    expect(dataOf(await t.http.gql(ChangePasswordDocument, { input }, { token: current.accessToken }))).toEqual({ changePassword: true });
    await expectAccessWorks(t, current);
    await expectEnded(user);
    await expectPassword(user.phone, GOOD_PASSWORD, false);
    await expectPassword(user.phone, NEW_PASSWORD, true);
  });

  it('needs currentPassword (VALIDATION_FAILED) and refuses a wrong one (INVALID_CREDENTIALS)', async () => {
    const user = await gqlRegister(t);
    const missing = errorOf(await t.http.gql(ChangePasswordDocument, { input: { newPassword: NEW_PASSWORD } }, { token: user.accessToken }), 'VALIDATION_FAILED');
    expect(fieldsOf(missing)).toEqual(['currentPassword']);
    const input = { currentPassword: 'not-my-password', newPassword: NEW_PASSWORD };
    errorOf(await t.http.gql(ChangePasswordDocument, { input }, { token: user.accessToken }), 'INVALID_CREDENTIALS');
    await expectPassword(user.phone, GOOD_PASSWORD, true);
  });

  it('throttles wrong current passwords: after 5 failures RATE_LIMITED with retryAfter', async () => {
    const user = await gqlRegister(t);
    for (let i = 0; i < 5; i++) {
      const input = { currentPassword: `wrong-password-${i}`, newPassword: NEW_PASSWORD };
      errorOf(await t.http.gql(ChangePasswordDocument, { input }, { token: user.accessToken }), 'INVALID_CREDENTIALS');
    }
    const input = { currentPassword: GOOD_PASSWORD, newPassword: NEW_PASSWORD };
    expect(expectRetryAfter(await t.http.gql(ChangePasswordDocument, { input }, { token: user.accessToken }))).toBeLessThanOrEqual(900);
  });

  it('lets a code-only account set its first password without currentPassword', async () => {
    const user = await gqlLogin(t);
    expect(user.user.hasPassword).toBe(false);
    dataOf(await t.http.gql(ChangePasswordDocument, { input: { newPassword: NEW_PASSWORD } }, { token: user.accessToken }));
    expect(dataOf(await t.http.gql(MeDocument, {}, { token: user.accessToken })).me.hasPassword).toBe(true);
    await expectPassword(user.phone, NEW_PASSWORD, true);
  });

  it('refuses a weak new password with WEAK_PASSWORD', async () => {
    const user = await gqlRegister(t);
    const input = { currentPassword: GOOD_PASSWORD, newPassword: '12345678' };
    errorOf(await t.http.gql(ChangePasswordDocument, { input }, { token: user.accessToken }), 'WEAK_PASSWORD');
  });
});

describe('updateProfile', () => {
  it('sets the trimmed nickname and returns the User; me and GET /users/me reflect it at once', async () => {
    const user = await gqlLogin(t);
    const { updateProfile } = dataOf(await t.http.gql(UpdateProfileDocument, { input: { nickname: '  Grace Hopper  ' } }, { token: user.accessToken }));
    expect(updateProfile).toMatchObject({ id: user.user.id, phone: user.phone, nickname: 'Grace Hopper' });
    expect(dataOf(await t.http.gql(MeDocument, {}, { token: user.accessToken })).me.nickname).toBe('Grace Hopper');
    expect((await t.http.get(ME, { token: user.accessToken })).body.nickname).toBe('Grace Hopper');
  });

  it('accepts 32 characters and 32 emoji', async () => {
    const user = await gqlLogin(t);
    for (const nickname of ['n'.repeat(32), '👩‍💻'.repeat(32)]) {
      expect(dataOf(await t.http.gql(UpdateProfileDocument, { input: { nickname } }, { token: user.accessToken })).updateProfile.nickname).toBe(nickname);
    }
  });

  it('refuses empty, blank, too long and control-character nicknames with VALIDATION_FAILED and fields.nickname', async () => {
    const user = await gqlLogin(t);
    for (const nickname of ['', '   ', 'n'.repeat(33), '👩‍💻'.repeat(33), 'ring\u0007', 'two\nlines']) {
      const error = errorOf(await t.http.gql(UpdateProfileDocument, { input: { nickname } }, { token: user.accessToken }), 'VALIDATION_FAILED');
      expect(fieldsOf(error)).toEqual(['nickname']);
    }
    expect(dataOf(await t.http.gql(MeDocument, {}, { token: user.accessToken })).me.nickname).toBe(user.user.nickname);
  });
});

describe('mySessions and revokeSession', () => {
  it('lists live sessions newest first, current marked, user agent and IP recorded at sign-in', async () => {
    const user = await gqlRegister(t);
    const current = await anotherSession(user.phone, 'MeetingWeb/5.0 (Macintosh)');
    const { mySessions } = dataOf(await t.http.gql(MySessionsDocument, {}, { token: current.accessToken }));
    expect(mySessions.map((s) => s.id)).toEqual([current, user].map((s) => sessionIdOf(s.accessToken)));
    expect(mySessions.map((s) => s.current)).toEqual([true, false]);
    expect(mySessions[0]).toMatchObject({ userAgent: 'MeetingWeb/5.0 (Macintosh)', ip: expect.stringMatching(/127\.0\.0\.1$/) });
    expect(Date.parse(mySessions[0]!.createdAt)).toBeGreaterThanOrEqual(Date.parse(mySessions[1]!.createdAt));
  });

  it('revokes one of my sessions (true): its tokens stop at once', async () => {
    const user = await gqlRegister(t);
    const other = await anotherSession(user.phone);
    const res = await t.http.gql(RevokeSessionDocument, { id: sessionIdOf(other.accessToken) }, { token: user.accessToken });
    expect(dataOf(res)).toEqual({ revokeSession: true });
    await expectEnded(other);
    await expectAccessWorks(t, user);
  });

  it('answers NOT_FOUND for another user’s session, an unknown UUID, a malformed id and an already revoked one', async () => {
    const user = await gqlRegister(t);
    const stranger = await gqlRegister(t);
    const gone = await anotherSession(user.phone);
    dataOf(await t.http.gql(RevokeSessionDocument, { id: sessionIdOf(gone.accessToken) }, { token: user.accessToken }));
    for (const id of [sessionIdOf(stranger.accessToken), randomUUID(), 'not-a-uuid', sessionIdOf(gone.accessToken)]) {
      errorOf(await t.http.gql(RevokeSessionDocument, { id }, { token: user.accessToken }), 'NOT_FOUND');
    }
    await expectAccessWorks(t, stranger);
  });
});

describe('deleteAccount', () => {
  it('deletes the account (true): sessions and avatar gone, tokens refused, and the phone can register again', async () => {
    const user = await gqlRegister(t);
    const uploaded = await uploadAvatar(t, user.accessToken);
    expect(uploaded.status).toBe(200);
    const avatarFile = join(t.dataDir, 'avatars', (uploaded.body.avatarUrl as string).split('/').at(-1)!);
    const code = await gqlCode(t, user.phone, 'DELETE_ACCOUNT');
    expect(dataOf(await t.http.gql(DeleteAccountDocument, { code }, { token: user.accessToken }))).toEqual({ deleteAccount: true });
    await expectEnded(user);
    expect(await countRows(t, 'users', 'id', user.user.id)).toBe(0);
    expect(await countRows(t, 'sessions', 'user_id', user.user.id)).toBe(0);
    expect(existsSync(avatarFile)).toBe(false);
    const register = await gqlCode(t, user.phone, 'REGISTER');
    const again = dataOf(await t.http.gql(RegisterDocument, { input: { phone: user.phone, code: register, password: NEW_PASSWORD } })).register;
    expect(again.isNewUser).toBe(true);
    expect(again.user.id).not.toBe(user.user.id);
  });

  it('refuses a wrong code with INVALID_CODE and keeps the account; a second deletion is UNAUTHENTICATED', async () => {
    const user = await gqlRegister(t);
    const code = await gqlCode(t, user.phone, 'DELETE_ACCOUNT');
    errorOf(await t.http.gql(DeleteAccountDocument, { code: wrongCode(code) }, { token: user.accessToken }), 'INVALID_CODE');
    await expectAccessWorks(t, user);
    dataOf(await t.http.gql(DeleteAccountDocument, { code }, { token: user.accessToken }));
    errorOf(await t.http.gql(DeleteAccountDocument, { code }, { token: user.accessToken }), 'UNAUTHENTICATED');
  });

  it('refuses a login code and a reset-password code with INVALID_CODE', async () => {
    const user = await gqlLogin(t);
    for (const purpose of ['LOGIN', 'RESET_PASSWORD'] as const) {
      const code = await gqlCode(t, user.phone, purpose);
      errorOf(await t.http.gql(DeleteAccountDocument, { code }, { token: user.accessToken }), 'INVALID_CODE');
    }
    await expectAccessWorks(t, user);
  });

  it('a reset-password code cannot sign in (INVALID_CODE)', async () => {
    const user = await gqlRegister(t);
    const code = await gqlCode(t, user.phone, 'RESET_PASSWORD');
    errorOf(await t.http.gql(LoginDocument, { input: { phone: user.phone, code } }), 'INVALID_CODE');
  });
});

describe('signed-in operations without a valid token', () => {
  it('answer UNAUTHENTICATED', async () => {
    const user = await gqlRegister(t);
    const id = sessionIdOf(user.accessToken);
    for (const token of [undefined, 'not-a-jwt']) {
      const options = token ? { token } : {};
      errorOf(await t.http.gql(MeDocument, {}, options), 'UNAUTHENTICATED');
      errorOf(await t.http.gql(MySessionsDocument, {}, options), 'UNAUTHENTICATED');
      errorOf(await t.http.gql(UpdateProfileDocument, { input: { nickname: 'Mallory' } }, options), 'UNAUTHENTICATED');
      errorOf(await t.http.gql(ChangePasswordDocument, { input: { newPassword: NEW_PASSWORD } }, options), 'UNAUTHENTICATED');
      errorOf(await t.http.gql(RevokeSessionDocument, { id }, options), 'UNAUTHENTICATED');
      errorOf(await t.http.gql(DeleteAccountDocument, { code: '123456' }, options), 'UNAUTHENTICATED');
    }
    await expectAccessWorks(t, user);
    await expectPassword(user.phone, GOOD_PASSWORD, true);
  });
});
