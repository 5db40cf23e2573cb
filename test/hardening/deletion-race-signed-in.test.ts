// A signed-in user's requests racing the deletion of their own account (API.md 8.0), and the
// account's requests without an access token (send-code, refresh, reset-password). Every use case
// that writes takes the account's row first, as the deletion does, so the two are serialised there:
// either the request commits first (its answer is a success, its event is in the log before the
// ACCOUNT_DELETED, and the deletion then ends its session), or the deletion does and the request
// answers 401 UNAUTHENTICATED, as its dead token would a moment later (a reset: 400 INVALID_CODE, as
// for a phone without an account). Never a 500 (a deadlock, or an event inserted for a user gone),
// never an error-level log line, never a row left pointing nowhere.
import { describe, expect, it } from '@jest/globals';
import { avatarFiles, gqlUpload, type RawResponse, resetAvatars, restUpload, solid } from '../avatar/support.js';
import { GOOD_PASSWORD, registerUser, requestCode, type Session } from '../helpers/factories.js';
import type { HttpResult } from '../helpers/http.js';
import { type TestServer, useTestServer } from '../helpers/server.js';
import { claimsOf } from '../helpers/tokens.js';
import { deleteAccount, MANY_CODES, race, type Transport } from './deletion-race-support.js';

/** The whole file's budget: each case races for its share of it (and at least MIN_ROUNDS rounds). */
const BUDGET_MS = 15_000;
const MIN_ROUNDS = 6;
const NEW_PASSWORD = 'amber-lantern-97';
/** How far apart the two requests of a round may start. */
const MAX_OFFSET_MS = 20;

// No grace for a used refresh token: presented again, it is a reuse at once.
const t = useTestServer({ ...MANY_CODES, REFRESH_REUSE_GRACE_SECONDS: '0' }, { captureLogs: true });

/** The round's account: the deleting session (A), the racing one (B), and one more for B to revoke (C). */
interface Round {
  user: Session;
  acting: string;
  actingSid: string;
  /** Session B's live refresh token, and one it used before (a reuse when presented). */
  refresh: { live: string; used?: string };
  other?: { token: string; sid: string };
  /** A reset-password code of the phone, for the racers that need one. */
  resetCode?: string;
  round: number;
}

/** An answer reduced to what the test judges: a success, or the error code and status. */
interface Answer {
  status: number;
  ok: boolean;
  codes: string[];
  /** X-Request-Id: the events a request wrote carry it. */
  requestId?: string;
}

function requestIdOf(res: HttpResult | RawResponse): string | undefined {
  const header = res.headers instanceof Headers ? res.headers.get('x-request-id') : res.headers['x-request-id'];
  return typeof header === 'string' ? header : undefined;
}

interface Racer {
  name: string;
  /** Needs session C. */
  other?: boolean;
  /** May end the deleting session before the deletion authenticates (then the deletion answers 401). */
  endsDeleter?: boolean;
  /** Needs a used refresh token of session B, or a reset code. */
  usedRefresh?: boolean;
  resetCode?: boolean;
  /** The answer when the deletion came first, when it is not 401 UNAUTHENTICATED. */
  gone?: { status: number; code: string };
  /** Its answer is a refusal in any order (a reused refresh token). */
  alwaysRefused?: boolean;
  /**
   * The event a success records, and the session it is about; `either`: written whichever came
   * first (an event of an account read but not locked), by a success or a refusal.
   */
  event?: { type: string; about: 'acting' | 'other' | 'none'; either?: boolean };
  send(t: TestServer, transport: Transport, r: Round): Promise<Answer>;
}

function restAnswer(res: HttpResult | RawResponse): Answer {
  const ok = res.status >= 200 && res.status < 300;
  return { status: res.status, ok, codes: ok ? [] : [res.body?.code], requestId: requestIdOf(res) };
}

function gqlAnswer(res: HttpResult | RawResponse): Answer {
  const codes: string[] = (res.body?.errors ?? []).map((e: { extensions?: { code?: string } }) => e.extensions?.code);
  return { status: res.status, ok: res.status === 200 && codes.length === 0 && res.body?.data != null, codes, requestId: requestIdOf(res) };
}

function gql(t: TestServer, token: string, query: string, variables?: Record<string, unknown>): Promise<Answer> {
  return t.http.post('/graphql', { query, variables }, token ? { token } : {}).then(gqlAnswer);
}

let image: Buffer;

const RACERS: Racer[] = [
  {
    name: 'a profile update',
    event: { type: 'PROFILE_CHANGED', about: 'acting' },
    send: (t, transport, r) =>
      transport === 'REST'
        ? t.http.request('PATCH', '/api/v1/users/me', { token: r.acting, body: { nickname: `racer ${r.round}` } }).then(restAnswer)
        : gql(t, r.acting, 'mutation($i: UpdateProfileInput!) { updateProfile(input: $i) { id } }', { i: { nickname: `racer ${r.round}` } }),
  },
  {
    name: 'a password change',
    endsDeleter: true,
    event: { type: 'PASSWORD_CHANGED', about: 'acting' },
    send: (t, transport, r) => {
      const input = { currentPassword: GOOD_PASSWORD, newPassword: NEW_PASSWORD };
      return transport === 'REST'
        ? t.http.request('PUT', '/api/v1/users/me/password', { token: r.acting, body: input }).then(restAnswer)
        : gql(t, r.acting, 'mutation($i: ChangePasswordInput!) { changePassword(input: $i) }', { i: input });
    },
  },
  {
    name: "a revocation of another of the user's sessions",
    other: true,
    event: { type: 'SESSION_REVOKED', about: 'other' },
    send: (t, transport, r) =>
      transport === 'REST'
        ? t.http.request('DELETE', `/api/v1/users/me/sessions/${r.other!.sid}`, { token: r.acting }).then(restAnswer)
        : gql(t, r.acting, 'mutation($id: ID!) { revokeSession(id: $id) }', { id: r.other!.sid }),
  },
  {
    name: 'a logout (every other round of all sessions)',
    endsDeleter: true,
    event: { type: 'LOGOUT', about: 'acting' },
    send: (t, transport, r) => {
      const allSessions = r.round % 2 === 1;
      return transport === 'REST'
        ? t.http.post('/api/v1/auth/logout', { allSessions }, { token: r.acting }).then(restAnswer)
        : gql(t, r.acting, 'mutation($all: Boolean) { logout(allSessions: $all) }', { all: allSessions });
    },
  },
  {
    name: 'an avatar upload',
    event: { type: 'AVATAR_CHANGED', about: 'acting' },
    send: (t, transport, r) =>
      transport === 'REST' ? restUpload(t, r.acting, image).then(restAnswer) : gqlUpload(t, r.acting, image).then(gqlAnswer),
  },
  {
    name: 'the reads (profile, sessions, security events, statistics)',
    send: async (t, transport, r) => {
      if (transport === 'GraphQL') {
        return gql(t, r.acting, '{ me { id } mySessions { id } mySecurityEvents(first: 5) { edges { cursor } } myStats { loginCount activeSessions } }');
      }
      const answers = await Promise.all(
        ['/api/v1/users/me', '/api/v1/users/me/sessions', '/api/v1/users/me/security-events', '/api/v1/users/me/stats'].map((path) =>
          t.http.get(path, { token: r.acting }).then(restAnswer),
        ),
      );
      return { status: Math.max(...answers.map((a) => a.status)), ok: answers.every((a) => a.ok), codes: answers.flatMap((a) => a.codes) };
    },
  },
];

/** The account's requests without an access token. */
const TOKENLESS: Racer[] = [
  {
    name: 'a send-code for the phone',
    event: { type: 'CODE_SENT', about: 'none', either: true },
    send: (t, transport, r) =>
      transport === 'REST'
        ? t.http.post('/api/v1/auth/send-code', { phone: r.user.phone, purpose: 'login' }).then(restAnswer)
        : gql(t, '', 'mutation($p: String!) { sendCode(input: { phone: $p, purpose: LOGIN }) { expiresIn } }', { p: r.user.phone }),
  },
  {
    name: 'a refresh',
    send: (t, transport, r) =>
      transport === 'REST'
        ? t.http.post('/api/v1/auth/refresh', { refreshToken: r.refresh.live }).then(restAnswer)
        : gql(t, '', 'mutation($t: String!) { refreshToken(refreshToken: $t) { accessToken } }', { t: r.refresh.live }),
  },
  {
    name: 'a reused refresh token',
    usedRefresh: true,
    alwaysRefused: true,
    event: { type: 'REFRESH_REUSE', about: 'acting', either: true },
    send: (t, transport, r) =>
      transport === 'REST'
        ? t.http.post('/api/v1/auth/refresh', { refreshToken: r.refresh.used }).then(restAnswer)
        : gql(t, '', 'mutation($t: String!) { refreshToken(refreshToken: $t) { accessToken } }', { t: r.refresh.used }),
  },
  {
    name: 'a password reset',
    resetCode: true,
    endsDeleter: true,
    gone: { status: 400, code: 'INVALID_CODE' },
    event: { type: 'PASSWORD_RESET', about: 'none' },
    send: (t, transport, r) => {
      const input = { phone: r.user.phone, code: r.resetCode, newPassword: NEW_PASSWORD };
      return transport === 'REST'
        ? t.http.post('/api/v1/auth/reset-password', input).then(restAnswer)
        : gql(t, '', 'mutation($i: ResetPasswordInput!) { resetPassword(input: $i) }', { i: input });
    },
  },
];

const CASES = [...RACERS, ...TOKENLESS].flatMap((racer) => (['REST', 'GraphQL'] as const).map((transport) => ({ racer, transport })));

async function passwordSession(t: TestServer, phone: string): Promise<{ token: string; sid: string; refreshToken: string }> {
  const res = await t.http.post('/api/v1/auth/login-password', { phone, password: GOOD_PASSWORD });
  if (res.status !== 200) throw new Error(`login-password failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { token: res.body.accessToken, sid: claimsOf(res.body.accessToken).sid, refreshToken: res.body.refreshToken };
}

const UNAUTHENTICATED = { status: 401, code: 'UNAUTHENTICATED' };

/** A clean refusal for a request of an account deleted meanwhile: what its dead token gets (or `gone`). */
function expectSuccessOrGone(answer: Answer, transport: Transport, gone = UNAUTHENTICATED): void {
  if (answer.ok) return;
  expect(answer.status).toBeLessThan(500);
  if (transport === 'REST') expect(answer).toMatchObject({ status: gone.status, ok: false, codes: expect.arrayContaining([gone.code]) });
  expect(new Set(answer.codes)).toEqual(new Set([gone.code]));
}

function errorLines(logs: string): string[] {
  return logs.split('\n').filter((line) => /"level":(50|60)\b/.test(line));
}

describe.each(CASES)('$racer.name over $transport racing the deletion of the account', ({ racer, transport }) => {
  const budget = BUDGET_MS / CASES.length;

  it('answers a success or 401 UNAUTHENTICATED, never a 500, logs no error and leaves nothing of the account behind', async () => {
    image ??= await solid(32, 32, 'png', '#405060');
    if (racer.event?.type === 'AVATAR_CHANGED') await resetAvatars(t);
    const logsBefore = t.logs().length;
    const outcomes: Record<string, number> = {};
    const count = (outcome: string) => (outcomes[outcome] = (outcomes[outcome] ?? 0) + 1);
    let offset = 0;
    const started = Date.now();
    for (let round = 0; round < MIN_ROUNDS || Date.now() - started < budget; round++) {
      const user = await registerUser(t);
      const acting = await passwordSession(t, user.phone);
      const other = racer.other ? await passwordSession(t, user.phone) : undefined;
      const refresh: Round['refresh'] = { live: acting.refreshToken };
      if (racer.usedRefresh) {
        const rotated = await t.http.post('/api/v1/auth/refresh', { refreshToken: acting.refreshToken });
        refresh.used = acting.refreshToken;
        refresh.live = rotated.body.refreshToken;
      }
      const resetCode = racer.resetCode ? await requestCode(t, user.phone, 'reset-password') : undefined;
      const code = await requestCode(t, user.phone, 'delete-account');
      const r: Round = { user, acting: acting.token, actingSid: acting.sid, refresh, other, resetCode, round };
      // The deletion over either transport; the request started `offset` ms after it (before it when
      // negative), moved a millisecond towards the other order after each round, so that the rounds
      // keep to where the two overlap, wherever that is for this request.
      const deletionOver: Transport = round % 2 === 0 ? 'REST' : 'GraphQL';
      const [deleted, answer] = await race(
        offset,
        () => deleteAccount(t, deletionOver, user.accessToken, code),
        () => racer.send(t, transport, r),
      );

      expect(deleted.status).toBeLessThan(500);
      expect(answer.status).toBeLessThan(500);
      if (racer.alwaysRefused) expect(answer.ok).toBe(false);
      expectSuccessOrGone(answer, transport, racer.gone);
      const deletion = deletionOver === 'REST' ? restAnswer(deleted) : gqlAnswer(deleted);
      if (!deletion.ok) {
        // Only a request that ended the deleting session may have come first and refused it.
        expect(racer.endsDeleter && answer.ok).toBe(true);
        expectSuccessOrGone(deletion, deletionOver);
        count('deletion refused: its session ended first');
        offset = Math.min(MAX_OFFSET_MS, offset + 1);
        continue;
      }

      // Nothing of the account is left but its events, and those point at no one.
      expect(await t.sql('select id from users where id = $1', [user.userId])).toEqual([]);
      expect(await t.sql('select id from sessions where user_id = $1', [user.userId])).toEqual([]);
      const sids = [claimsOf(user.accessToken).sid, acting.sid, ...(other ? [other.sid] : [])];
      expect(await t.sql('select token_hash from refresh_tokens where session_id = any($1::uuid[])', [sids])).toEqual([]);
      expect(await t.sql('select id from security_events where user_id = $1', [user.userId])).toEqual([]);
      const deletedEvents = await t.sql<{ id: string }>("select id from security_events where type = 'ACCOUNT_DELETED' and session_id = $1", [sids[0]]);
      expect(deletedEvents).toHaveLength(1);
      let first = answer.ok;
      if (racer.event) {
        // The request's own events: a success is in the log before the deletion, a refusal wrote none
        // (unless it is written whichever came first: then the order tells).
        const mine = await t.sql<{ type: string; session_id: string | null; after: boolean }>(
          'select type, session_id, id > $2 as after from security_events where request_id::text = $1 order by id',
          [answer.requestId, deletedEvents[0]!.id],
        );
        const about = { acting: acting.sid, other: other?.sid, none: null }[racer.event.about];
        if (racer.event.either) {
          expect(mine.length).toBeLessThanOrEqual(1);
          if (answer.ok) expect(mine).toHaveLength(1);
          expect(mine.map(({ type, session_id }) => ({ type, session_id }))).toEqual(mine.length ? [{ type: racer.event.type, session_id: about }] : []);
          first = mine.length === 1 && !mine[0]!.after;
        } else {
          expect(mine).toEqual(answer.ok ? [{ type: racer.event.type, session_id: about, after: false }] : []);
        }
      }
      if (racer.event?.type === 'AVATAR_CHANGED') expect(await avatarFiles(t)).toEqual([]);
      count(first ? 'request first' : 'deletion first');
      offset = Math.max(-MAX_OFFSET_MS, Math.min(MAX_OFFSET_MS, offset + (first ? 1 : -1)));
    }

    expect(await t.sql('select count(*)::int as n from sessions s where not exists (select 1 from users u where u.id = s.user_id)')).toEqual([{ n: 0 }]);
    expect(
      await t.sql('select count(*)::int as n from security_events e where e.user_id is not null and not exists (select 1 from users u where u.id = e.user_id)'),
    ).toEqual([{ n: 0 }]);
    expect(errorLines(t.logs().slice(logsBefore))).toEqual([]);
    expect(Object.values(outcomes).reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(MIN_ROUNDS);
  });
});
