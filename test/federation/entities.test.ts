// API.md 9.2: the schema is a Federation 2 subgraph. `_entities` resolves `User` references (a
// meeting's host) for a signed-in caller only: its own account whole, another one as id, nickname
// and avatarUrl, any other field of it FORBIDDEN; the references of one request in one query,
// whatever their number. `_service { sdl }` answers the committed subgraph SDL.
import { describe, expect, it } from '@jest/globals';
import { readFile } from 'node:fs/promises';
import { errorOf } from '../graphql/support.js';
import { registerUser } from '../helpers/factories.js';
import { useTestServer } from '../helpers/server.js';

const t = useTestServer();

const ENTITIES = `query($representations: [_Any!]!) { _entities(representations: $representations) { __typename ... on User { id nickname avatarUrl } } }`;
const PRIVATE = `query($representations: [_Any!]!) { _entities(representations: $representations) { ... on User { id nickname phone } } }`;
const user = (id: string) => ({ __typename: 'User', id });

describe('_entities', () => {
  it('needs a signed-in caller', async () => {
    const someone = await registerUser(t);
    const res = await t.http.post('/graphql', { query: ENTITIES, variables: { representations: [user(someone.userId)] } });
    expect(res.body.data?._entities ?? [null]).toEqual([null]);
    expect(res.body.errors?.map((e: any) => e.extensions.code)).toEqual(['UNAUTHENTICATED']);
  });

  it("shows another account's id, nickname and avatarUrl, and refuses any other field of it with FORBIDDEN", async () => {
    const [caller, host] = [await registerUser(t), await registerUser(t, undefined, undefined, 'Host')];
    const shown = await t.http.post('/graphql', { query: ENTITIES, variables: { representations: [user(host.userId)] } }, { token: caller.accessToken });
    expect(shown.body).toEqual({ data: { _entities: [{ __typename: 'User', id: host.userId, nickname: 'Host', avatarUrl: null }] } });
    const hidden = await t.http.post('/graphql', { query: PRIVATE, variables: { representations: [user(host.userId)] } }, { token: caller.accessToken });
    expect(hidden.body.data._entities).toEqual([null]);
    expect(errorOf(hidden, 'FORBIDDEN').path).toEqual(['_entities', 0, 'phone']);
    expect(JSON.stringify(hidden.body)).not.toContain(host.phone);
  });

  it("shows the caller's own account whole, named in any case", async () => {
    const caller = await registerUser(t);
    const res = await t.http.post(
      '/graphql',
      { query: `query($r: [_Any!]!) { _entities(representations: $r) { ... on User { id phone hasPassword role createdAt } } }`, variables: { r: [user(caller.userId.toUpperCase())] } },
      { token: caller.accessToken },
    );
    expect(res.body).toEqual({ data: { _entities: [{ id: caller.userId, phone: caller.phone, hasPassword: true, role: 'USER', createdAt: expect.any(String) }] } });
  });

  // A reference without a usable id is refused whole (API.md 10.0): entities-hardening.test.ts.
  it('answers null for an id of nobody', async () => {
    const caller = await registerUser(t);
    const representations = [user('00000000-0000-4000-8000-000000000000'), user(caller.userId)];
    const res = await t.http.post('/graphql', { query: ENTITIES, variables: { representations } }, { token: caller.accessToken });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data._entities.map((e: any) => e?.id ?? null)).toEqual([null, caller.userId]);
  });

  it('reads the accounts of any number of references in one query', async () => {
    const caller = await registerUser(t);
    const others = await Promise.all(Array.from({ length: 5 }, () => registerUser(t)));
    const representations = Array.from({ length: 50 }, (_, i) => user(others[i % others.length]!.userId));
    const accounts = t.server.services.accounts;
    const original = accounts.findManyById.bind(accounts);
    const calls: number[] = [];
    accounts.findManyById = (ids) => {
      calls.push(ids.length);
      return original(ids);
    };
    try {
      const res = await t.http.post('/graphql', { query: ENTITIES, variables: { representations } }, { token: caller.accessToken });
      expect(res.body.errors).toBeUndefined();
      expect(res.body.data._entities.map((e: any) => e.id)).toEqual(representations.map((r) => r.id));
    } finally {
      accounts.findManyById = original;
    }
    // Five distinct accounts, asked for once.
    expect(calls).toEqual([5]);
  });
});

describe('_service', () => {
  it('answers the subgraph SDL committed as schema/subgraph.graphql', async () => {
    const committed = await readFile(new URL('../../schema/subgraph.graphql', import.meta.url), 'utf8');
    const res = await t.http.post('/graphql', { query: '{ _service { sdl } }' });
    expect(res.body.data._service.sdl.trim()).toBe(committed.trim());
  });
});
