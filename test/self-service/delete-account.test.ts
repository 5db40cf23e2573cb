import { describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { GOOD_PASSWORD, registerUser, requestCode, signInWithCode, type Session } from '../helpers/factories.js';
import { useTestServer } from '../helpers/server.js';
import { wrongCode } from '../helpers/assertions.js';
import { expectProblem } from '../rest/support.js';
import {
  ME,
  NEW_PASSWORD,
  RESET,
  SERVER_ENV,
  countRows,
  expectAccessWorks,
  expectNoContent,
  expectPasswordAccepted,
  expectSessionEnded,
  passwordLogin,
  sessionIdOf,
  uploadAvatar,
} from './support.js';

const INTERNAL_KEY = 'meeting-service-key-for-self-service-tests-0123';

const t = useTestServer({ ...SERVER_ENV, INTERNAL_API_KEY: INTERNAL_KEY });

const deleteMe = (token: string, body: unknown) => t.http.request('DELETE', ME, { token, body });

/** Gives the user an avatar and one meeting-usage report; returns the avatar's URL and file. */
async function withAvatarAndUsage(user: Session): Promise<{ avatarUrl: string; avatarFile: string }> {
  const uploaded = await uploadAvatar(t, user.accessToken);
  expect(uploaded.status).toBe(200);
  const avatarUrl: string = uploaded.body.avatarUrl;
  expect(avatarUrl).toMatch(/^\/api\/v1\/avatars\/[^/]+$/);
  const avatarFile = join(t.dataDir, 'avatars', avatarUrl.split('/').at(-1)!);
  expect(existsSync(avatarFile)).toBe(true);
  expect((await t.http.get(avatarUrl)).status).toBe(200);
  const joinedAt = new Date(Date.now() - 3_600_000).toISOString();
  const leftAt = new Date(Date.now() - 1_800_000).toISOString();
  const usage = await t.http.post(
    '/api/v1/internal/meeting-usage',
    { userId: user.userId, meetingId: `meeting-${user.userId}`, role: 'host', joinedAt, leftAt },
    { headers: { 'x-internal-key': INTERNAL_KEY } },
  );
  expect(usage.status).toBe(204);
  expect(await countRows(t, 'meeting_usage', 'user_id', user.userId)).toBe(1);
  return { avatarUrl, avatarFile };
}

describe('DELETE /api/v1/users/me', () => {
  it('deletes the account with a delete-account code: 204; account, sessions, avatar and usage reports are gone', async () => {
    const user = await registerUser(t);
    const other = await passwordLogin(t, user.phone);
    const { avatarUrl, avatarFile } = await withAvatarAndUsage(user);
    const sessionIds = [user, other].map((s) => sessionIdOf(s.accessToken));
    const code = await requestCode(t, user.phone, 'delete-account');

    expectNoContent(await deleteMe(user.accessToken, { code }));

    expect(await countRows(t, 'users', 'id', user.userId)).toBe(0);
    expect(await countRows(t, 'sessions', 'user_id', user.userId)).toBe(0);
    expect(await t.sql('select session_id from refresh_tokens where session_id = any($1::uuid[])', [sessionIds])).toEqual([]);
    for (const table of ['meeting_usage', 'user_meetings', 'user_meeting_roles', 'user_meeting_totals']) {
      expect({ table, rows: await countRows(t, table, 'user_id', user.userId) }).toEqual({ table, rows: 0 });
    }
    expect(existsSync(avatarFile)).toBe(false);
    expectProblem(await t.http.get(avatarUrl), 404, 'NOT_FOUND');
  });

  it('stops every token of the account at once (access and refresh: 401)', async () => {
    const user = await registerUser(t);
    const other = await passwordLogin(t, user.phone);
    const code = await requestCode(t, user.phone, 'delete-account');
    expectNoContent(await deleteMe(other.accessToken, { code }));
    await expectSessionEnded(t, user);
    await expectSessionEnded(t, other);
    await expectPasswordAccepted(t, user.phone, GOOD_PASSWORD, false);
  });

  it('lets the phone register again as a new account', async () => {
    const user = await registerUser(t);
    expectNoContent(await deleteMe(user.accessToken, { code: await requestCode(t, user.phone, 'delete-account') }));
    const code = await requestCode(t, user.phone, 'register');
    const again = await t.http.post('/api/v1/auth/register', { phone: user.phone, code, password: NEW_PASSWORD });
    expect(again.status).toBe(201);
    expect(again.body.isNewUser).toBe(true);
    expect(again.body.user.id).not.toBe(user.userId);
    expect(again.body.user).toMatchObject({ phone: user.phone, nickname: `User${user.phone.slice(-4)}`, avatarUrl: null, hasPassword: true });
    await expectPasswordAccepted(t, user.phone, NEW_PASSWORD, true);
  });

  it('lets the phone sign in by code again as a new account', async () => {
    const user = await signInWithCode(t);
    expectNoContent(await deleteMe(user.accessToken, { code: await requestCode(t, user.phone, 'delete-account') }));
    const code = await requestCode(t, user.phone, 'login');
    const again = await t.http.post('/api/v1/auth/login', { phone: user.phone, code });
    expect(again.status).toBe(200);
    expect(again.body.isNewUser).toBe(true);
    expect(again.body.user.id).not.toBe(user.userId);
  });

  it('answers a second deletion with 401 UNAUTHENTICATED (the token’s session is gone)', async () => {
    const user = await registerUser(t);
    const code = await requestCode(t, user.phone, 'delete-account');
    expectNoContent(await deleteMe(user.accessToken, { code }));
    expectProblem(await deleteMe(user.accessToken, { code }), 401, 'UNAUTHENTICATED');
  });

  it('refuses a wrong code with 400 INVALID_CODE and keeps the account', async () => {
    const user = await registerUser(t);
    const { avatarFile } = await withAvatarAndUsage(user);
    const code = await requestCode(t, user.phone, 'delete-account');
    expectProblem(await deleteMe(user.accessToken, { code: wrongCode(code) }), 400, 'INVALID_CODE');
    await expectAccessWorks(t, user);
    expect(await countRows(t, 'users', 'id', user.userId)).toBe(1);
    expect(await countRows(t, 'meeting_usage', 'user_id', user.userId)).toBe(1);
    expect(existsSync(avatarFile)).toBe(true);
    // The right code still works afterwards.
    expectNoContent(await deleteMe(user.accessToken, { code }));
  });

  it('needs a fresh code: one replaced by a newer code is 400 INVALID_CODE', async () => {
    const user = await registerUser(t);
    const first = await requestCode(t, user.phone, 'delete-account');
    const second = await requestCode(t, user.phone, 'delete-account');
    if (first !== second) expectProblem(await deleteMe(user.accessToken, { code: first }), 400, 'INVALID_CODE');
    await expectAccessWorks(t, user);
    expectNoContent(await deleteMe(user.accessToken, { code: second }));
  });

  it('refuses a missing code with 400 VALIDATION_FAILED naming it', async () => {
    const user = await registerUser(t);
    const problem = expectProblem(await deleteMe(user.accessToken, {}), 400, 'VALIDATION_FAILED');
    expect(Object.keys(problem.fields)).toEqual(['code']);
    await expectAccessWorks(t, user);
  });

  it('leaves other accounts untouched', async () => {
    const user = await registerUser(t);
    const bystander = await registerUser(t);
    const theirs = await withAvatarAndUsage(bystander);
    expectNoContent(await deleteMe(user.accessToken, { code: await requestCode(t, user.phone, 'delete-account') }));
    await expectAccessWorks(t, bystander);
    expect(existsSync(theirs.avatarFile)).toBe(true);
    expect((await t.http.get(theirs.avatarUrl)).status).toBe(200);
    expect(await countRows(t, 'meeting_usage', 'user_id', bystander.userId)).toBe(1);
  });
});

describe('code purposes are not interchangeable', () => {
  it('a login code cannot reset a password (INVALID_CODE) and still signs in afterwards', async () => {
    const user = await registerUser(t);
    const code = await requestCode(t, user.phone, 'login');
    expectProblem(await t.http.post(RESET, { phone: user.phone, code, newPassword: NEW_PASSWORD }), 400, 'INVALID_CODE');
    await expectPasswordAccepted(t, user.phone, GOOD_PASSWORD, true);
    expect((await t.http.post('/api/v1/auth/login', { phone: user.phone, code })).status).toBe(200);
  });

  it('a login code cannot delete an account (INVALID_CODE)', async () => {
    const user = await registerUser(t);
    const code = await requestCode(t, user.phone, 'login');
    expectProblem(await deleteMe(user.accessToken, { code }), 400, 'INVALID_CODE');
    await expectAccessWorks(t, user);
  });

  it('a reset-password code cannot sign in (INVALID_CODE) and still resets afterwards', async () => {
    const user = await registerUser(t);
    const code = await requestCode(t, user.phone, 'reset-password');
    expectProblem(await t.http.post('/api/v1/auth/login', { phone: user.phone, code }), 400, 'INVALID_CODE');
    expectNoContent(await t.http.post(RESET, { phone: user.phone, code, newPassword: NEW_PASSWORD }));
  });

  it('a reset-password code cannot delete an account (INVALID_CODE)', async () => {
    const user = await registerUser(t);
    const code = await requestCode(t, user.phone, 'reset-password');
    expectProblem(await deleteMe(user.accessToken, { code }), 400, 'INVALID_CODE');
    await expectAccessWorks(t, user);
  });

  it('a delete-account code cannot reset a password (INVALID_CODE) and still deletes afterwards', async () => {
    const user = await registerUser(t);
    const code = await requestCode(t, user.phone, 'delete-account');
    expectProblem(await t.http.post(RESET, { phone: user.phone, code, newPassword: NEW_PASSWORD }), 400, 'INVALID_CODE');
    await expectPasswordAccepted(t, user.phone, GOOD_PASSWORD, true);
    expectNoContent(await deleteMe(user.accessToken, { code }));
  });
});
