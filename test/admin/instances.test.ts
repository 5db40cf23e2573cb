// Two instances of one deployment on one database: what an operator does through one is seen by the
// other on its very next request, with no cache to wait for (role and block are read in the
// per-request session check). Both transports on the second instance.
import { describe, expect, it } from '@jest/globals';
import { errorOf } from '../graphql/support.js';
import { GOOD_PASSWORD, registerUser } from '../helpers/factories.js';
import { instancePair } from '../helpers/instances.js';
import { expectProblem } from '../rest/support.js';

const { a, b } = instancePair(() => ({}));

describe('an operator acting through instance A', () => {
  it('blocks, unblocks and changes roles as seen at once by instance B', async () => {
    const admin = await registerUser(a);
    await a.sql(`update users set role = 'ADMIN' where id = $1`, [admin.userId]);
    const user = await registerUser(a);
    const meOnB = () => b.http.get('/api/v1/users/me', { token: user.accessToken });
    const gqlMeOnB = () => b.http.post('/graphql', { query: '{ me { role } }' }, { token: user.accessToken });
    expect((await meOnB()).body.role).toBe('USER');

    const promoted = await a.http.request('PUT', `/api/v1/admin/users/${user.userId}/role`, { token: admin.accessToken, body: { role: 'SUPPORT' } });
    expect(promoted.status).toBe(200);
    expect((await meOnB()).body.role).toBe('SUPPORT');
    expect((await gqlMeOnB()).body.data.me.role).toBe('SUPPORT');
    // The new SUPPORT may read accounts through B at once, and may not block.
    expect((await b.http.get(`/api/v1/admin/users/${admin.userId}`, { token: user.accessToken })).status).toBe(200);
    expectProblem(await b.http.post(`/api/v1/admin/users/${admin.userId}/block`, { reason: 'no' }, { token: user.accessToken }), 403, 'FORBIDDEN');

    const blocked = await a.http.post(`/api/v1/admin/users/${user.userId}/block`, { reason: 'spam' }, { token: admin.accessToken });
    expect(blocked.body.status).toBe('BLOCKED');
    expectProblem(await meOnB(), 401, 'UNAUTHENTICATED');
    errorOf(await gqlMeOnB(), 'UNAUTHENTICATED');
    expectProblem(await b.http.post('/api/v1/auth/login-password', { phone: user.phone, password: GOOD_PASSWORD }), 403, 'ACCOUNT_BLOCKED');
    expectProblem(await b.http.post('/api/v1/auth/refresh', { refreshToken: user.refreshToken }), 403, 'ACCOUNT_BLOCKED');

    expect((await a.http.post(`/api/v1/admin/users/${user.userId}/unblock`, undefined, { token: admin.accessToken })).body.status).toBe('ACTIVE');
    const again = await b.http.post('/api/v1/auth/login-password', { phone: user.phone, password: GOOD_PASSWORD });
    expect(again.status).toBe(200);
    expect(again.body.user.role).toBe('SUPPORT');
  });
});
