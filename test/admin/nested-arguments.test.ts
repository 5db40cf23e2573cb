// API.md 9.0: a mutation checks every argument of its selection (nested page sizes included) before
// it changes anything, so VALIDATION_FAILED means nothing changed. The operators' mutations answer an
// AdminUser, whose securityEvents(first, after) is read after the change: an out-of-range page there,
// however the selection reaches it (directly, through an alias, a named or an inline fragment), is
// refused before the block, unblock or role change, with no audit entry, event or webhook.
import { describe, expect, it } from '@jest/globals';
import { errorOf } from '../graphql/support.js';
import { registerUser } from '../helpers/factories.js';
import { useTestServer } from '../helpers/server.js';
import { withRole } from './support.js';

const t = useTestServer({ WEBHOOK_URLS: 'http://127.0.0.1:9/hooks', WEBHOOK_SECRET: `whsec_${Buffer.from('a-test-signing-key-of-32-bytes!!').toString('base64')}` });

const MUTATIONS = {
  adminBlockUser: '(id: $id, reason: "spam")',
  adminUnblockUser: '(id: $id)',
  adminSetRole: '(id: $id, role: SUPPORT)',
};
const SELECTIONS = {
  'directly': (page: string) => ({ selection: `{ id securityEvents${page} { edges { node { id } } } }`, fragments: '' }),
  'under an alias': (page: string) => ({ selection: `{ id events: securityEvents${page} { edges { node { id } } } }`, fragments: '' }),
  'in a named fragment': (page: string) => ({ selection: '{ id ...Events }', fragments: `fragment Events on AdminUser { securityEvents${page} { edges { node { id } } } }` }),
  'in an inline fragment': (page: string) => ({ selection: `{ id ... on AdminUser { securityEvents${page} { edges { node { id } } } } }`, fragments: '' }),
};
/** Each page out of range, and the argument the refusal names. */
const PAGES: Record<string, [string, string]> = {
  'first: 0': ['(first: 0)', 'first'],
  'first: 101': ['(first: 101)', 'first'],
  'a cursor of nothing': ['(after: "garbage")', 'after'],
  'first: $n = -1': ['(first: $n)', 'first'],
};

/** What an operator's mutation could have changed about `userId`. */
async function stateOf(userId: string) {
  const [user] = await t.sql('select role, blocked_at, blocked_reason from users where id = $1', [userId]);
  return {
    user,
    sessions: await t.sql('select id from sessions where user_id = $1 and revoked_at is null order by id', [userId]),
    audit: await t.sql('select id from audit_log where target_user_id = $1 order by id', [userId]),
    events: await t.sql(`select id from security_events where user_id = $1 and type <> 'SIGN_IN' and type <> 'CODE_SENT' order by id`, [userId]),
    outbox: await t.sql('select seq from webhook_deliveries where user_key = $1 order by seq', [userId]),
  };
}

describe('nested arguments of a mutation', () => {
  it.each(Object.keys(MUTATIONS) as (keyof typeof MUTATIONS)[])('%s changes nothing when a securityEvents page in its selection is out of range', async (mutation) => {
    const admin = await withRole(t, 'ADMIN');
    const user = await registerUser(t);
    if (mutation === 'adminUnblockUser') await t.sql(`update users set blocked_at = now(), blocked_reason = 'before' where id = $1`, [user.userId]);
    const before = await stateOf(user.userId);
    for (const [how, select] of Object.entries(SELECTIONS)) {
      for (const [what, [page, field]] of Object.entries(PAGES)) {
        const { selection, fragments } = select(page);
        const declared = page.includes('$n') ? ', $n: Int' : '';
        const query = `mutation M($id: ID!${declared}) { ${mutation}${MUTATIONS[mutation]} ${selection} } ${fragments}`;
        const res = await t.http.post('/graphql', { query, variables: { id: user.userId, n: -1 } }, { token: admin.accessToken });
        expect({ how, what, status: res.status, data: res.body.data }).toEqual({ how, what, status: 400, data: undefined });
        expect(Object.keys(errorOf(res, 'VALIDATION_FAILED').extensions?.fields as object)).toEqual([field]);
      }
    }
    expect(await stateOf(user.userId)).toEqual(before);
  });

  it('runs the mutation when the page is in range, and reads the events after the change', async () => {
    const admin = await withRole(t, 'ADMIN');
    const user = await registerUser(t);
    const res = await t.http.post(
      '/graphql',
      { query: 'mutation($id: ID!) { adminBlockUser(id: $id, reason: "spam") { status securityEvents(first: 1) { edges { node { type } } } } }', variables: { id: user.userId } },
      { token: admin.accessToken },
    );
    expect(res.body).toEqual({ data: { adminBlockUser: { status: 'BLOCKED', securityEvents: { edges: [{ node: { type: 'ACCOUNT_VIEWED_BY_OPERATOR' } }] } } } });
  });

  it('refuses a query reading one account with an out-of-range page before the reading is audited', async () => {
    const admin = await withRole(t, 'ADMIN');
    const user = await registerUser(t);
    const res = await t.http.post('/graphql', { query: 'query($id: ID!) { adminUser(id: $id) { id ...E } } fragment E on AdminUser { securityEvents(first: 101) { edges { cursor } } }', variables: { id: user.userId } }, { token: admin.accessToken });
    expect(res.status).toBe(400);
    expect(errorOf(res, 'VALIDATION_FAILED').extensions?.fields).toEqual({ first: 'must be a whole number from 1 to 100' });
    expect(await t.sql('select id from audit_log where target_user_id = $1', [user.userId])).toEqual([]);
  });
});
