import { beforeEach, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { ConfigDocument, MeDocument } from '../generated/graphql.js';
import { signInWithCode, type Session } from '../helpers/factories.js';
import { useTestServer } from '../helpers/server.js';
import {
  AVATAR_URL,
  expectUploadProblem,
  fetchAvatar,
  gqlUpload,
  resetAvatars,
  restMe,
  restUpload,
  send,
  solid,
  type RawResponse,
} from './support.js';

const ACCEPTED = ['image/jpeg', 'image/png', 'image/webp', 'image/gif'];

const t = useTestServer();
let user: Session;
let url: string;
beforeEach(async () => {
  await resetAvatars(t);
  user = await signInWithCode(t);
  const res = await restUpload(t, user.accessToken, await solid(100, 100, 'png'));
  expect(res.status).toBe(200);
  url = res.body.avatarUrl;
});

const get = (path: string, headers: Record<string, string> = {}): Promise<RawResponse> => send(`${t.url}${path}`, 'GET', headers);
const hexOf = (avatarUrl: string) => /([0-9a-f]{32})\.webp$/.exec(avatarUrl)![1]!;

describe('GET /api/v1/avatars/{key}', () => {
  it('serves the WebP without authentication, with nosniff, a long-lived Cache-Control and an ETag', async () => {
    const res = await get(url);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('image/webp');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['content-length']).toBe(String(res.raw.length));
    const cacheControl = res.headers['cache-control'] ?? '';
    expect(cacheControl).toMatch(/\bpublic\b/);
    expect(Number(/max-age=(\d+)/.exec(cacheControl)?.[1])).toBeGreaterThanOrEqual(30 * 24 * 3600);
    expect(res.headers.etag).toMatch(/^(W\/)?"[^"]+"$/);
    await fetchAvatar(t, url);
  });

  it('answers If-None-Match with the current ETag by 304 without a body, and a stale one by 200', async () => {
    const etag = (await get(url)).headers.etag!;
    for (const ifNoneMatch of [etag, `"0000", ${etag}`, `W/${etag.replace(/^W\//, '')}`, '*']) {
      const res = await get(url, { 'if-none-match': ifNoneMatch });
      expect({ ifNoneMatch, status: res.status, length: res.raw.length }).toEqual({ ifNoneMatch, status: 304, length: 0 });
      expect(res.headers.etag).toBe(etag);
    }
    const stale = await get(url, { 'if-none-match': '"0123456789abcdef0123456789abcdef"' });
    expect(stale.status).toBe(200);
    expect(stale.raw.length).toBeGreaterThan(0);
  });

  it('serves the image and its 304 with Cross-Origin-Resource-Policy: cross-origin, while a 404 and other routes keep same-site', async () => {
    const image = await get(url);
    expect(image.status).toBe(200);
    expect(image.headers['cross-origin-resource-policy']).toBe('cross-origin');
    const notModified = await get(url, { 'if-none-match': image.headers.etag! });
    expect(notModified.status).toBe(304);
    expect(notModified.headers['cross-origin-resource-policy']).toBe('cross-origin');
    const missing = await get(`/api/v1/avatars/${randomBytes(16).toString('hex')}.webp`);
    expectUploadProblem(missing, 404, 'NOT_FOUND');
    expect(missing.headers['cross-origin-resource-policy']).toBe('same-site');
    for (const other of [await get('/api/v1/auth/config'), await get('/api/v1/users/me')]) {
      expect(other.headers['cross-origin-resource-policy']).toBe('same-site');
    }
    const gql = await t.http.gql(ConfigDocument, {});
    expect(gql.headers.get('cross-origin-resource-policy')).toBe('same-site');
  });

  it('answers unknown and malformed keys with a 404 NOT_FOUND problem', async () => {
    const hex = hexOf(url);
    const keys = [
      'abc',
      '..%2Fpackage.json',
      '..%2F..%2F..%2Fetc%2Fpasswd',
      '%2E%2E%2Fsms.jsonl',
      `${hex}.png`,
      hex,
      `${hex.toUpperCase()}.webp`,
      `${hex}.webp.partial`,
      `${randomBytes(16).toString('hex')}.webp`,
    ];
    for (const key of keys) {
      const res = await get(`/api/v1/avatars/${key}`);
      expect({ key, status: res.status }).toEqual({ key, status: 404 });
      expectUploadProblem(res, 404, 'NOT_FOUND');
      expect(res.headers['x-content-type-options'] === 'nosniff' && res.headers['content-type'] === 'image/webp').toBe(false);
    }
    expectUploadProblem(await get(`/api/v1/avatars/${keys.at(-1)}`, { 'if-none-match': `"${hex}"` }), 404, 'NOT_FOUND');
  });

  it('answers the old URL with 404 once the avatar is replaced, over either transport', async () => {
    const res = await gqlUpload(t, user.accessToken, await solid(100, 100, 'png', '#123456'));
    const next = res.body.data.uploadAvatar.avatarUrl as string;
    expect(next).toMatch(AVATAR_URL);
    expect(next).not.toBe(url);
    expectUploadProblem(await get(url), 404, 'NOT_FOUND');
    expectUploadProblem(await get(url, { 'if-none-match': (await get(next)).headers.etag! }), 404, 'NOT_FOUND');
    await fetchAvatar(t, next);
  });
});

describe('User.avatarUrl and config.avatar', () => {
  it('shows the same avatarUrl in me over REST and GraphQL, and null for a user without an avatar', async () => {
    const gql = await t.http.gql(MeDocument, {}, { token: user.accessToken });
    expect(gql.body.data?.me.avatarUrl).toBe(url);
    expect((await restMe(t, user.accessToken)).avatarUrl).toBe(url);
    expect(url).toMatch(AVATAR_URL);

    const other = await signInWithCode(t);
    expect(other.body.user.avatarUrl).toBeNull();
    expect((await restMe(t, other.accessToken)).avatarUrl).toBeNull();
    expect((await t.http.gql(MeDocument, {}, { token: other.accessToken })).body.data?.me.avatarUrl).toBeNull();
  });

  it('publishes maxBytes and the four accepted types in config.avatar, on REST and GraphQL alike', async () => {
    const rest = await t.http.get('/api/v1/auth/config');
    expect(rest.status).toBe(200);
    expect(rest.body.avatar).toEqual({ maxBytes: 5 * 1024 * 1024, acceptedTypes: ACCEPTED });
    const gql = await t.http.gql(ConfigDocument, {});
    expect(gql.body.data?.config.avatar).toEqual({ maxBytes: 5 * 1024 * 1024, acceptedTypes: ACCEPTED });
  });

});

describe('config.avatar with AVATAR_MAX_BYTES set', () => {
  const small = useTestServer({ AVATAR_MAX_BYTES: '65536' });

  it('publishes the configured AVATAR_MAX_BYTES on REST and GraphQL', async () => {
    expect((await small.http.get('/api/v1/auth/config')).body.avatar).toEqual({ maxBytes: 65536, acceptedTypes: ACCEPTED });
    expect((await small.http.gql(ConfigDocument, {})).body.data?.config.avatar.maxBytes).toBe(65536);
  });
});
