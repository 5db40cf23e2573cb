import { describe, expect, it } from '@jest/globals';
import jwt from 'jsonwebtoken';
import { LoginWithPasswordDocument, LogoutDocument, MyStatsDocument, RefreshTokenDocument } from '../generated/graphql.js';
import { clearRateLimits, GOOD_PASSWORD, registerUser, type Session, signInWithCode } from '../helpers/factories.js';
import { useTestServer } from '../helpers/server.js';
import { errorOf } from '../graphql/support.js';
import { expectProblem } from '../rest/support.js';
import {
  DAY,
  HOUR,
  INTERNAL_KEY,
  MINUTE,
  NO_MEETINGS,
  SECOND,
  STATS,
  STATS_FIELDS,
  gqlStats,
  report,
  restStats,
  sendAll,
} from './support.js';

const t = useTestServer({ INTERNAL_API_KEY: INTERNAL_KEY });

/** REST and GraphQL figures of one token: asserts they agree field by field, returns the REST ones. */
async function statsOnBothTransports(token: string): Promise<any> {
  const rest = await restStats(t, token);
  const gql = await gqlStats(t, token);
  expect(Object.keys(rest).sort()).toEqual(STATS_FIELDS);
  expect(gql).toEqual(rest);
  return rest;
}

const me = async (token: string) => (await t.http.get('/api/v1/users/me', { token })).body;
const sessionIdOf = (accessToken: string) => (jwt.decode(accessToken) as { sid: string }).sid;
const passwordLogin = async (phone: string): Promise<Session> => {
  const res = await t.http.post('/api/v1/auth/login-password', { phone, password: GOOD_PASSWORD });
  expect(res.status).toBe(200);
  return { phone, accessToken: res.body.accessToken, refreshToken: res.body.refreshToken, userId: res.body.user.id, body: res.body };
};

describe('personal statistics: a new account', () => {
  it('has zero meeting figures, one login, one session and 0 days (login by code)', async () => {
    const s = await signInWithCode(t);
    const stats = await statsOnBothTransports(s.accessToken);
    expect(stats).toEqual({
      loginCount: 1,
      lastLoginAt: s.body.user.lastLoginAt,
      memberSince: s.body.user.createdAt,
      daysSinceRegistration: 0,
      activeSessions: 1,
      ...NO_MEETINGS,
    });
  });

  it('counts registration as the first login', async () => {
    const s = await registerUser(t);
    expect(await statsOnBothTransports(s.accessToken)).toMatchObject({ loginCount: 1, lastLoginAt: s.body.user.lastLoginAt, activeSessions: 1, ...NO_MEETINGS });
  });
});

describe('personal statistics: account figures', () => {
  it('counts every successful login of any kind and transport, but not refreshes or failed logins', async () => {
    const s = await registerUser(t); // 1
    await passwordLogin(s.phone); // 2
    await clearRateLimits(t);
    await signInWithCode(t, s.phone); // 3
    const gqlLogin = await t.http.gql(LoginWithPasswordDocument, { input: { phone: s.phone, password: GOOD_PASSWORD } }); // 4
    expect(gqlLogin.body.errors).toBeUndefined();
    const last = gqlLogin.body.data!.loginWithPassword;

    expect((await t.http.post('/api/v1/auth/login-password', { phone: s.phone, password: 'not-the-password-9' })).status).toBe(401);
    const refreshed = await t.http.post('/api/v1/auth/refresh', { refreshToken: s.refreshToken });
    expect(refreshed.status).toBe(200);
    const gqlRefreshed = await t.http.gql(RefreshTokenDocument, { refreshToken: last.refreshToken });
    expect(gqlRefreshed.body.errors).toBeUndefined();

    const stats = await statsOnBothTransports(refreshed.body.accessToken);
    expect(stats.loginCount).toBe(4);
    expect(stats.lastLoginAt).toBe(last.user.lastLoginAt);
    expect(stats.lastLoginAt).toBe((await me(s.accessToken)).lastLoginAt);
    expect(Date.parse(stats.lastLoginAt)).toBeGreaterThan(Date.parse(s.body.user.lastLoginAt));
  });

  it('reports memberSince as createdAt and counts whole days since registration', async () => {
    const s = await signInWithCode(t);
    await t.sql("update users set created_at = created_at - interval '3 days' where id = $1", [s.userId]);
    const { createdAt } = await me(s.accessToken);
    expect(Date.parse(s.body.user.createdAt) - Date.parse(createdAt)).toBe(3 * DAY);
    expect(await statsOnBothTransports(s.accessToken)).toMatchObject({ memberSince: createdAt, daysSinceRegistration: 3 });
  });

  it('counts live, unexpired sessions only: logout and expiry take a session away, refresh adds none', async () => {
    const first = await registerUser(t);
    const second = await passwordLogin(first.phone);
    const third = await passwordLogin(first.phone);
    expect((await statsOnBothTransports(first.accessToken)).activeSessions).toBe(3);

    expect((await t.http.post('/api/v1/auth/logout', {}, { token: second.accessToken })).status).toBe(204);
    expect((await statsOnBothTransports(first.accessToken)).activeSessions).toBe(2);

    await t.sql("update sessions set expires_at = now() - interval '1 minute' where id = $1", [sessionIdOf(third.accessToken)]);
    expect((await statsOnBothTransports(first.accessToken)).activeSessions).toBe(1);

    const refreshed = await t.http.post('/api/v1/auth/refresh', { refreshToken: first.refreshToken });
    expect(refreshed.status).toBe(200);
    expect(await statsOnBothTransports(refreshed.body.accessToken)).toMatchObject({ activeSessions: 1, loginCount: 3 });
  });
});

describe('personal statistics: meeting figures', () => {
  it('adds up hosted, joined, overlapping, retried, rejoined and old meetings as the contract says', async () => {
    const s = await signInWithCode(t);
    const now = Date.now();
    const r = (meetingId: string, role: 'host' | 'participant', startedAgo: number, duration: number) =>
      report(s.userId, meetingId, role, startedAgo, duration, now);
    const hosted = r('m-1', 'host', 3 * HOUR, 45 * MINUTE + 30 * SECOND); // 45 min
    const rejoin = r('m-1', 'host', 2 * HOUR, 10 * MINUTE + 59 * SECOND); // 10 min, same meeting
    const joined = r('m-2', 'participant', 5 * HOUR, 30 * MINUTE); // 30 min
    const overlapping = r('m-3', 'participant', 4 * HOUR + 50 * MINUTE, 20 * MINUTE + 59 * SECOND); // 20 min, during m-2
    const latest = r('m-4', 'participant', HOUR, 90 * SECOND); // 1 min
    const short = r('m-5', 'participant', 6 * HOUR, 59 * SECOND); // 0 min
    const old = r('m-old', 'host', 40 * DAY, 2 * HOUR); // 120 min, outside the last 30 days
    // The latest report first, the retry of `hosted` in the middle.
    await sendAll(t, [latest, old, hosted, joined, hosted, overlapping, rejoin, short]);

    const stats = await statsOnBothTransports(s.accessToken);
    expect(stats).toMatchObject({
      meetingsHosted: 2, // m-1, m-old
      meetingsJoined: 4, // m-2, m-3, m-4, m-5
      totalMeetingMinutes: 45 + 10 + 30 + 20 + 1 + 0 + 120, // 226, rounded down per report
      hostedMeetingMinutes: 45 + 10 + 120,
      averageMeetingMinutes: 37.67, // 226 / 6 distinct meetings
      lastMeetingAt: latest.joinedAt,
      last30Days: { meetings: 5, minutes: 226 - 120 },
      loginCount: 1,
      activeSessions: 1,
    });
  });

  it('rounds down per report, not over the sum: 90 s counts 1 minute, 59 s counts 0', async () => {
    const s = await signInWithCode(t);
    await sendAll(t, [report(s.userId, 'a', 'participant', 2 * HOUR, 90 * SECOND), report(s.userId, 'b', 'participant', HOUR, 59 * SECOND)]);
    expect(await statsOnBothTransports(s.accessToken)).toMatchObject({ meetingsJoined: 2, totalMeetingMinutes: 1, hostedMeetingMinutes: 0, averageMeetingMinutes: 0.5 });
  });

  it('counts a rejoin of the same meeting at another time in minutes but not as another meeting', async () => {
    const s = await signInWithCode(t);
    await sendAll(t, [report(s.userId, 'm', 'participant', 3 * HOUR, 20 * MINUTE), report(s.userId, 'm', 'participant', 2 * HOUR, 10 * MINUTE)]);
    expect(await statsOnBothTransports(s.accessToken)).toMatchObject({
      meetingsJoined: 1,
      totalMeetingMinutes: 30,
      averageMeetingMinutes: 30,
      last30Days: { meetings: 1, minutes: 30 },
    });
  });

  it('counts a meeting hosted and later joined as a participant once per role and once in the average', async () => {
    const s = await signInWithCode(t);
    await sendAll(t, [report(s.userId, 'm', 'host', 3 * HOUR, 20 * MINUTE), report(s.userId, 'm', 'participant', 2 * HOUR, 10 * MINUTE)]);
    expect(await statsOnBothTransports(s.accessToken)).toMatchObject({
      meetingsHosted: 1,
      meetingsJoined: 1,
      totalMeetingMinutes: 30,
      hostedMeetingMinutes: 20,
      averageMeetingMinutes: 30,
      last30Days: { meetings: 1, minutes: 30 },
    });
  });

  it('rounds the average to 2 decimals', async () => {
    const s = await signInWithCode(t);
    await sendAll(t, [
      report(s.userId, 'a', 'host', 3 * HOUR, 10 * MINUTE),
      report(s.userId, 'b', 'host', 2 * HOUR, 0),
      report(s.userId, 'c', 'participant', HOUR, 0),
    ]);
    expect(await statsOnBothTransports(s.accessToken)).toMatchObject({ totalMeetingMinutes: 10, averageMeetingMinutes: 3.33 });
  });

  it('keeps a report older than 30 days out of last30Days but in the totals and lastMeetingAt', async () => {
    const s = await signInWithCode(t);
    const old = report(s.userId, 'old', 'participant', 40 * DAY, 15 * MINUTE);
    await sendAll(t, [old]);
    expect(await statsOnBothTransports(s.accessToken)).toMatchObject({
      meetingsJoined: 1,
      totalMeetingMinutes: 15,
      averageMeetingMinutes: 15,
      lastMeetingAt: old.joinedAt,
      last30Days: { meetings: 0, minutes: 0 },
    });
  });
});

describe('personal statistics: isolation between users', () => {
  it("never includes another user's reports, even of a meeting they shared", async () => {
    const host = await signInWithCode(t);
    const guest = await signInWithCode(t);
    const bystander = await registerUser(t);
    const now = Date.now();
    await sendAll(t, [
      report(host.userId, 'shared', 'host', 2 * HOUR, 60 * MINUTE, now),
      report(host.userId, 'solo', 'host', 5 * HOUR, 30 * MINUTE, now),
      report(guest.userId, 'shared', 'participant', 2 * HOUR - 10 * MINUTE, 25 * MINUTE, now),
    ]);

    expect(await statsOnBothTransports(host.accessToken)).toMatchObject({
      meetingsHosted: 2,
      meetingsJoined: 0,
      totalMeetingMinutes: 90,
      hostedMeetingMinutes: 90,
      averageMeetingMinutes: 45,
      lastMeetingAt: new Date(now - 2 * HOUR).toISOString(),
      last30Days: { meetings: 2, minutes: 90 },
    });
    expect(await statsOnBothTransports(guest.accessToken)).toMatchObject({
      meetingsHosted: 0,
      meetingsJoined: 1,
      totalMeetingMinutes: 25,
      hostedMeetingMinutes: 0,
      averageMeetingMinutes: 25,
      lastMeetingAt: new Date(now - 2 * HOUR + 10 * MINUTE).toISOString(),
      last30Days: { meetings: 1, minutes: 25 },
    });
    expect(await statsOnBothTransports(bystander.accessToken)).toMatchObject({ ...NO_MEETINGS, loginCount: 1, activeSessions: 1 });
  });

  it("does not count another user's logins or sessions", async () => {
    const a = await registerUser(t);
    const b = await registerUser(t);
    await passwordLogin(b.phone);
    await passwordLogin(b.phone);
    expect(await statsOnBothTransports(a.accessToken)).toMatchObject({ loginCount: 1, activeSessions: 1 });
    expect(await statsOnBothTransports(b.accessToken)).toMatchObject({ loginCount: 3, activeSessions: 3 });
  });
});

describe('personal statistics: authentication', () => {
  it('answers 401 UNAUTHENTICATED on REST and UNAUTHENTICATED on GraphQL without a token', async () => {
    expectProblem(await t.http.get(STATS), 401, 'UNAUTHENTICATED');
    const res = await t.http.gql(MyStatsDocument, {});
    errorOf(res, 'UNAUTHENTICATED');
    expect(res.body.data ?? null).toBeNull();
  });

  it('refuses a malformed token and the token of a logged-out session on both transports', async () => {
    const s = await signInWithCode(t);
    const loggedOut = await t.http.gql(LogoutDocument, {}, { token: s.accessToken });
    expect(loggedOut.body.errors).toBeUndefined();
    for (const token of ['not-a-jwt', s.accessToken]) {
      expectProblem(await t.http.get(STATS, { token }), 401, 'UNAUTHENTICATED');
      errorOf(await t.http.gql(MyStatsDocument, {}, { token }), 'UNAUTHENTICATED');
    }
  });
});
