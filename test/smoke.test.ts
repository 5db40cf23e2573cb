import { describe, expect, it } from '@jest/globals';
import { MeDocument } from './generated/graphql.js';
import { signInWithCode } from './helpers/factories.js';
import { useTestServer } from './helpers/server.js';

const t = useTestServer();

describe('smoke', () => {
  it('signs in by code and reads me on both transports', async () => {
    const s = await signInWithCode(t);
    const rest = await t.http.get('/api/v1/users/me', { token: s.accessToken });
    expect(rest.status).toBe(200);
    const gql = await t.http.gql(MeDocument, {}, { token: s.accessToken });
    expect(gql.body.data?.me).toEqual(rest.body);
  });
});
