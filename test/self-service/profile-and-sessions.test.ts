import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { MeDocument } from '../generated/graphql.js';
import { registerUser, signInWithCode } from '../helpers/factories.js';
import { useTestServer } from '../helpers/server.js';
import { ISO_UTC, expectUser } from '../helpers/assertions.js';
import { expectProblem } from '../rest/support.js';
import { ME, NEW_PASSWORD, PASSWORD, SERVER_ENV, SESSIONS, expectAccessWorks, expectNoContent, expectSessionEnded, passwordLogin, sessionIdOf } from './support.js';

const t = useTestServer(SERVER_ENV);

const patchMe = (token: string, body: unknown) => t.http.request('PATCH', ME, { token, body });
const revoke = (token: string, id: string) => t.http.request('DELETE', `${SESSIONS}/${id}`, { token });
const SESSION_KEYS = ['createdAt', 'current', 'id', 'ip', 'lastUsedAt', 'userAgent'];
const WORKER = '👩‍💻'; // one user-perceived character, five UTF-16 code units

describe('PATCH /api/v1/users/me', () => {
  it('sets the trimmed nickname and answers 200 with the User, reflected at once on both transports', async () => {
    const user = await signInWithCode(t);
    const res = await patchMe(user.accessToken, { nickname: '  Ada Lovelace \t' });
    expect(res.status).toBe(200);
    expectUser(res.body, 'REST', { id: user.userId, phone: user.phone, nickname: 'Ada Lovelace', hasPassword: false });
    expect((await t.http.get(ME, { token: user.accessToken })).body.nickname).toBe('Ada Lovelace');
    const gql = await t.http.gql(MeDocument, {}, { token: user.accessToken });
    expect(gql.body.data?.me.nickname).toBe('Ada Lovelace');
  });

  it('accepts exactly 32 characters', async () => {
    const user = await signInWithCode(t);
    const res = await patchMe(user.accessToken, { nickname: 'n'.repeat(32) });
    expect(res.status).toBe(200);
    expect(res.body.nickname).toBe('n'.repeat(32));
  });

  it('refuses empty, whitespace-only and 33-character nicknames with 400 VALIDATION_FAILED and fields.nickname', async () => {
    const user = await signInWithCode(t);
    const before = (await t.http.get(ME, { token: user.accessToken })).body.nickname;
    for (const nickname of ['', '   ', '\t\n ', 'n'.repeat(33), ` ${'n'.repeat(33)} `]) {
      const problem = expectProblem(await patchMe(user.accessToken, { nickname }), 400, 'VALIDATION_FAILED');
      expect(Object.keys(problem.fields)).toEqual(['nickname']);
    }
    expect((await t.http.get(ME, { token: user.accessToken })).body.nickname).toBe(before);
  });

  it('refuses control characters with 400 VALIDATION_FAILED and fields.nickname', async () => {
    const user = await signInWithCode(t);
    for (const nickname of ['ring\u0007', 'two\nlines', 'tab\there', 'nul\u0000', 'esc\u001b[31m', 'del\u007f']) {
      const problem = expectProblem(await patchMe(user.accessToken, { nickname }), 400, 'VALIDATION_FAILED');
      expect(Object.keys(problem.fields)).toEqual(['nickname']);
    }
  });

  it('counts an emoji as one character: 32 accepted, 33 refused', async () => {
    const user = await signInWithCode(t);
    const ok = await patchMe(user.accessToken, { nickname: WORKER.repeat(32) });
    expect(ok.status).toBe(200);
    expect(ok.body.nickname).toBe(WORKER.repeat(32));
    const problem = expectProblem(await patchMe(user.accessToken, { nickname: WORKER.repeat(33) }), 400, 'VALIDATION_FAILED');
    expect(Object.keys(problem.fields)).toEqual(['nickname']);
    expect((await t.http.get(ME, { token: user.accessToken })).body.nickname).toBe(WORKER.repeat(32));
  });

  it('bounds the field at 256 code points (not UTF-16 units) before the 32-character rule', async () => {
    const user = await signInWithCode(t);
    const long = expectProblem(await patchMe(user.accessToken, { nickname: 'n'.repeat(257) }), 400, 'VALIDATION_FAILED');
    expect(long.fields).toEqual({ nickname: 'must be at most 256 code points' });
    // 130 emoji, 260 UTF-16 units: within 256 code points, so the character rule answers.
    const emoji = expectProblem(await patchMe(user.accessToken, { nickname: '😀'.repeat(130) }), 400, 'VALIDATION_FAILED');
    expect(emoji.fields).toEqual({ nickname: 'must be at most 32 characters' });
  });

  it('accepts emoji flag tag sequences but refuses stray tag characters', async () => {
    const user = await signInWithCode(t);
    const scotland = '\u{1F3F4}\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}'; // 🏴󠁧󠁢󠁳󠁣󠁴󠁿, one emoji
    const ok = await patchMe(user.accessToken, { nickname: `Fan ${scotland}` });
    expect(ok.status).toBe(200);
    expect(ok.body.nickname).toBe(`Fan ${scotland}`);
    expect((await patchMe(user.accessToken, { nickname: scotland.repeat(32) })).status).toBe(200);
    // Tag characters outside a flag are invisible text: refused.
    const hidden = expectProblem(await patchMe(user.accessToken, { nickname: 'Ada\u{E0068}\u{E0069}' }), 400, 'VALIDATION_FAILED');
    expect(Object.keys(hidden.fields)).toEqual(['nickname']);
  });

  it('refuses a missing or wrongly typed nickname with 400 VALIDATION_FAILED', async () => {
    const user = await signInWithCode(t);
    for (const body of [{}, { nickname: 42 }, { nickname: null }]) {
      const problem = expectProblem(await patchMe(user.accessToken, body), 400, 'VALIDATION_FAILED');
      expect(Object.keys(problem.fields)).toEqual(['nickname']);
    }
  });
});

describe('GET /api/v1/users/me/sessions', () => {
  it('lists live sessions newest first with exactly the contract fields, the current one marked', async () => {
    const user = await registerUser(t);
    const phoneApp = await passwordLogin(t, user.phone, undefined, 'MeetingApp/3.2 (iPhone; iOS 18.1)');
    const desktop = await passwordLogin(t, user.phone, undefined, 'MeetingDesktop/1.0 (Windows NT 10.0)');
    const res = await t.http.get(SESSIONS, { token: phoneApp.accessToken });
    expect(res.status).toBe(200);
    expect(res.body.map((s: any) => s.id)).toEqual([desktop, phoneApp, user].map((s) => sessionIdOf(s.accessToken)));
    for (const session of res.body) {
      expect(Object.keys(session).sort()).toEqual(SESSION_KEYS);
      expect(session.createdAt).toMatch(ISO_UTC);
      expect(session.lastUsedAt).toMatch(ISO_UTC);
      expect(session.ip).toMatch(/^(::ffff:)?127\.0\.0\.1$/);
    }
    expect(res.body.map((s: any) => s.current)).toEqual([false, true, false]);
    expect(res.body[0].userAgent).toBe('MeetingDesktop/1.0 (Windows NT 10.0)');
    expect(res.body[1].userAgent).toBe('MeetingApp/3.2 (iPhone; iOS 18.1)');
    const created = res.body.map((s: any) => Date.parse(s.createdAt));
    expect([...created].sort((a, b) => b - a)).toEqual(created);
  });

  it('lists live sessions only, and only the caller’s', async () => {
    const user = await registerUser(t);
    const loggedOut = await passwordLogin(t, user.phone);
    const revoked = await passwordLogin(t, user.phone);
    const expired = await passwordLogin(t, user.phone);
    const stranger = await registerUser(t);
    expectNoContent(await t.http.post('/api/v1/auth/logout', {}, { token: loggedOut.accessToken }));
    expectNoContent(await revoke(user.accessToken, sessionIdOf(revoked.accessToken)));
    await t.sql(`update sessions set expires_at = now() - interval '1 second' where id = $1`, [sessionIdOf(expired.accessToken)]);
    const res = await t.http.get(SESSIONS, { token: user.accessToken });
    expect(res.body).toEqual([expect.objectContaining({ id: sessionIdOf(user.accessToken), current: true })]);
    const theirs = await t.http.get(SESSIONS, { token: stranger.accessToken });
    expect(theirs.body.map((s: any) => s.id)).toEqual([sessionIdOf(stranger.accessToken)]);
  });
});

describe('DELETE /api/v1/users/me/sessions/{id}', () => {
  it('revokes one of my sessions: 204, and its access and refresh tokens stop at once; others live on', async () => {
    const user = await registerUser(t);
    const laptop = await passwordLogin(t, user.phone);
    const tablet = await passwordLogin(t, user.phone);
    expectNoContent(await revoke(user.accessToken, sessionIdOf(laptop.accessToken)));
    await expectSessionEnded(t, laptop);
    await expectAccessWorks(t, user);
    await expectAccessWorks(t, tablet);
    const list = await t.http.get(SESSIONS, { token: tablet.accessToken });
    expect(list.body.map((s: any) => s.id)).toEqual([tablet, user].map((s) => sessionIdOf(s.accessToken)));
  });

  it('revokes the current session too: 204, and the token stops at once', async () => {
    const user = await registerUser(t);
    expectNoContent(await revoke(user.accessToken, sessionIdOf(user.accessToken)));
    await expectSessionEnded(t, user);
  });

  it('answers 404 NOT_FOUND for another user’s session, an unknown UUID, a malformed id and an already revoked one', async () => {
    const user = await registerUser(t);
    const gone = await passwordLogin(t, user.phone);
    expectNoContent(await revoke(user.accessToken, sessionIdOf(gone.accessToken)));
    const stranger = await registerUser(t);
    const strangerSession = sessionIdOf(stranger.accessToken);
    for (const id of [strangerSession, randomUUID(), 'not-a-uuid', `${randomUUID()}x`, '1%27%20or%201%3D1', sessionIdOf(gone.accessToken)]) {
      expectProblem(await revoke(user.accessToken, id), 404, 'NOT_FOUND');
    }
    await expectAccessWorks(t, stranger);
    await expectAccessWorks(t, user);
  });
});

describe('signed-in self-service without a valid token', () => {
  it('answers every signed-in endpoint with 401 UNAUTHENTICATED', async () => {
    const user = await registerUser(t);
    const ended = await passwordLogin(t, user.phone);
    expectNoContent(await t.http.post('/api/v1/auth/logout', {}, { token: ended.accessToken }));
    const calls: [string, string, unknown][] = [
      ['GET', ME, undefined],
      ['PATCH', ME, { nickname: 'Mallory' }],
      ['PUT', PASSWORD, { currentPassword: 'violet-harbor-42', newPassword: NEW_PASSWORD }],
      ['GET', SESSIONS, undefined],
      ['DELETE', `${SESSIONS}/${sessionIdOf(user.accessToken)}`, undefined],
      ['DELETE', ME, { code: '123456' }],
    ];
    for (const token of [undefined, 'not-a-jwt', ended.accessToken]) {
      for (const [method, path, body] of calls) {
        expectProblem(await t.http.request(method, path, { token, body }), 401, 'UNAUTHENTICATED');
      }
    }
    await expectAccessWorks(t, user);
    expect((await t.http.get(ME, { token: user.accessToken })).body.nickname).not.toBe('Mallory');
  });
});
