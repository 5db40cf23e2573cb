// API.md 9.0: text that PostgreSQL cannot store (U+0000, unpaired surrogates) or that its field
// forbids (control characters) is VALIDATION_FAILED, for every text input on both transports, in
// bodies, query strings, paths, variables and literals; JSON nests at most 32 levels. Refused before
// anything is written: the block below changes no account, writes no audit entry and no webhook.
// The whole surface is swept by test/fuzz/field-sweep.test.ts; here, the findings one by one.
import { describe, expect, it } from '@jest/globals';
import { dataOf, errorOf } from '../graphql/support.js';
import { registerUser, signInWithCode } from '../helpers/factories.js';
import { useTestServer } from '../helpers/server.js';
import { expectProblem } from '../rest/support.js';
import { refusal, TRANSPORTS, withRole, type Transport } from '../admin/support.js';

const INTERNAL_KEY = 'a-key-for-the-meeting-service-of-forty-chars';
const t = useTestServer({ INTERNAL_API_KEY: INTERNAL_KEY });

const UNSTORABLE = {
  'U+0000': 'spam\u0000ring',
  'a lone high surrogate': 'spam \ud800 ring',
  'a lone low surrogate': '\udfffspam',
};
const CONTROLS = {
  'an escape sequence': 'spam \u001b[31mring',
  'DEL': 'spam\u007f',
  'a C1 control': 'spam\u0085',
  'a bidi override': 'spam \u202e gnir',
};

function block(transport: Transport, token: string, id: string, reason: string) {
  return transport === 'REST'
    ? t.http.post(`/api/v1/admin/users/${id}/block`, { reason }, { token })
    : t.http.post('/graphql', { query: 'mutation($id: ID!, $reason: String!) { adminBlockUser(id: $id, reason: $reason) { id status blockedReason } }', variables: { id, reason } }, { token });
}

async function nothingWritten(userId: string): Promise<void> {
  const [user] = await t.sql<{ blocked: boolean }>('select blocked_at is not null as blocked from users where id = $1', [userId]);
  expect(user!.blocked).toBe(false);
  expect(await t.sql('select id from audit_log where target_user_id = $1', [userId])).toEqual([]);
  expect(await t.sql(`select seq from webhook_deliveries where user_key = $1`, [userId])).toEqual([]);
}

describe.each(TRANSPORTS)('text inputs over %s', (transport) => {
  it.each(Object.entries({ ...UNSTORABLE, ...CONTROLS }))('refuses a block reason with %s, and blocks nothing', async (_what, reason) => {
    const admin = await withRole(t, 'ADMIN');
    const user = await registerUser(t);
    const fields = refusal(await block(transport, admin.accessToken, user.userId, reason), transport, 'VALIDATION_FAILED');
    expect(Object.keys(fields ?? {})).toEqual(['reason']);
    await nothingWritten(user.userId);
    expect((await t.http.get('/api/v1/users/me', { token: user.accessToken })).status).toBe(200);
  });

  it('takes a reason of several lines and tabs, trimmed', async () => {
    const admin = await withRole(t, 'ADMIN');
    const user = await registerUser(t);
    const res = await block(transport, admin.accessToken, user.userId, '  spam\n\tfrom three numbers  ');
    const shown = transport === 'REST' ? res.body : (dataOf(res) as any).adminBlockUser;
    expect(shown.blockedReason).toBe('spam\n\tfrom three numbers');
  });

  it.each(Object.entries(UNSTORABLE))('refuses a nickname with %s and keeps the one it had', async (_what, nickname) => {
    const user = await signInWithCode(t);
    const res =
      transport === 'REST'
        ? await t.http.request('PATCH', '/api/v1/users/me', { token: user.accessToken, body: { nickname } })
        : await t.http.post('/graphql', { query: 'mutation($input: UpdateProfileInput!) { updateProfile(input: $input) { nickname } }', variables: { input: { nickname } } }, { token: user.accessToken });
    expect(refusal(res, transport, 'VALIDATION_FAILED')).toEqual({ nickname: expect.any(String) });
    const [row] = await t.sql<{ nickname: string }>('select nickname from users where id = $1', [user.userId]);
    expect(row!.nickname).toBe(user.body.user.nickname);
  });

  it.each(Object.entries(UNSTORABLE))("refuses a passkey's new name with %s", async (_what, name) => {
    const user = await signInWithCode(t);
    const id = '00000000-0000-4000-8000-000000000001';
    const res =
      transport === 'REST'
        ? await t.http.request('PATCH', `/api/v1/users/me/passkeys/${id}`, { token: user.accessToken, body: { name } })
        : await t.http.post('/graphql', { query: 'mutation($id: ID!, $name: String!) { renamePasskey(id: $id, name: $name) { id } }', variables: { id, name } }, { token: user.accessToken });
    expect(refusal(res, transport, 'VALIDATION_FAILED')).toEqual({ name: expect.any(String) });
  });
});

describe('text inputs, where only one transport has them', () => {
  it('refuses U+0000 written as an escape in a GraphQL string literal', async () => {
    const user = await signInWithCode(t);
    const res = await t.http.post('/graphql', { query: 'mutation { updateProfile(input: { nickname: "a\\u0000b" }) { nickname } }' }, { token: user.accessToken });
    expect(res.status).toBe(400);
    errorOf(res, 'VALIDATION_FAILED');
  });

  it('refuses U+0000 in a path segment, a query parameter and an object key of a REST request', async () => {
    const user = await signInWithCode(t);
    const admin = await withRole(t, 'ADMIN');
    expect(expectProblem(await t.http.request('DELETE', '/api/v1/users/me/passkeys/ab%00cd', { token: user.accessToken }), 400, 'VALIDATION_FAILED').fields).toEqual({ '(path)': expect.any(String) });
    expect(expectProblem(await t.http.get('/api/v1/admin/users?query=13%00', { token: admin.accessToken }), 400, 'VALIDATION_FAILED').fields).toEqual({ query: expect.any(String) });
    const keyed = await t.http.post('/api/v1/auth/send-code', { phone: user.phone, ['purpose\u0000']: 'login' });
    expect(expectProblem(keyed, 400, 'VALIDATION_FAILED').fields).toEqual({ 'purpose\u0000': expect.stringContaining('NUL') });
  });

  it("refuses control characters in the meeting service's meeting id", async () => {
    const user = await signInWithCode(t);
    const joinedAt = new Date(Date.now() - 60_000).toISOString();
    const report = (meetingId: string) =>
      t.http.post('/api/v1/internal/meeting-usage', { userId: user.userId, meetingId, role: 'host', joinedAt, leftAt: new Date().toISOString() }, { headers: { 'x-internal-key': INTERNAL_KEY } });
    for (const meetingId of ['m-1\u0000', 'm-\ud800', 'm-1\n', 'm\u001b[0m']) {
      expect(expectProblem(await report(meetingId), 400, 'VALIDATION_FAILED').fields).toEqual({ meetingId: expect.any(String) });
    }
    expect((await report(' m 1 ')).status).toBe(204);
    expect(await t.sql<{ meetingId: string }>('select meeting_id as "meetingId" from meeting_usage where user_id = $1', [user.userId])).toEqual([{ meetingId: ' m 1 ' }]);
  });
});

/** `[[[...]]]` or `{"a":{"a":...}}`, `depth` levels deep. */
function nested(depth: number, kind: 'array' | 'object'): unknown {
  let value: unknown = kind === 'array' ? [] : {};
  for (let i = 1; i < depth; i++) value = kind === 'array' ? [value] : { a: value };
  return value;
}

describe('JSON nesting', () => {
  it.each([
    ['arrays', 'array'],
    ['objects', 'object'],
  ] as const)('refuses a JSON argument of %s 4,000 levels deep before anything converts it', async (_what, kind) => {
    const user = await signInWithCode(t);
    const deep = nested(4000, kind);
    const add = await t.http.post('/graphql', { query: 'mutation($r: JSON!) { addPasskey(response: $r) { id } }', variables: { r: deep } }, { token: user.accessToken });
    expect(add.status).toBe(400);
    expect(errorOf(add, 'VALIDATION_FAILED').extensions?.fields).toEqual({ r: expect.stringContaining('32 levels') });
    const login = await t.http.post('/graphql', {
      query: 'mutation($r: JSON!) { loginWithPasskey(challengeId: "00000000-0000-4000-8000-000000000001", response: $r) { accessToken } }',
      variables: { r: deep },
    });
    expect(login.status).toBe(400);
    errorOf(login, 'VALIDATION_FAILED');
  });

  it('refuses a JSON literal 33 levels deep, and judges one of 32 by its shape', async () => {
    const literal = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
    const ask = (depth: number) =>
      t.http.post('/graphql', { query: `mutation { loginWithPasskey(challengeId: "00000000-0000-4000-8000-000000000001", response: ${literal(depth)}) { accessToken } }` });
    const deep = await ask(33);
    expect(deep.status).toBe(400);
    expect(errorOf(deep, 'VALIDATION_FAILED').message).toContain('32 levels');
    const shallow = await ask(32);
    expect(errorOf(shallow, 'VALIDATION_FAILED').message).not.toContain('32 levels');
  });

  it('refuses a REST body nested more than 32 levels deep', async () => {
    const res = await t.http.post('/api/v1/auth/passkey/login', { challengeId: '00000000-0000-4000-8000-000000000001', response: nested(4000, 'object') });
    expect(expectProblem(res, 400, 'VALIDATION_FAILED').fields).toEqual({ response: expect.stringContaining('32 levels') });
  });
});
