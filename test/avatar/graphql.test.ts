import { beforeEach, describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { MeDocument } from '../generated/graphql.js';
import { signInWithCode, type Session } from '../helpers/factories.js';
import { useTestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';
import {
  AVATAR_URL,
  avatarFiles,
  bands,
  expectGqlError,
  expectNothingStored,
  fetchAvatar,
  gqlUpload,
  gqlUploadBody,
  HTML,
  jpegWithMetadata,
  noise,
  padPng,
  PDF,
  pngBomb,
  RawUpload,
  resetAvatars,
  restMe,
  send,
  settledTmpFiles,
  solid,
  SVG,
  TEXT,
  tmpFiles,
  UPLOAD_MUTATION,
  type RawResponse,
} from './support.js';

const MAX_BYTES = 65_536;

const t = useTestServer({ AVATAR_MAX_BYTES: String(MAX_BYTES) });
let user: Session;
beforeEach(async () => {
  await resetAvatars(t);
  user = await signInWithCode(t);
});

const keyOf = (url: string) => url.slice('/api/v1/avatars/'.length);

/** Asserts a successful uploadAvatar for `session`; returns the new avatar URL. */
function uploaded(res: RawResponse, session = user): string {
  expect({ status: res.status, errors: res.body.errors }).toEqual({ status: 200, errors: undefined });
  expect(res.body.data.uploadAvatar.id).toBe(session.userId);
  expect(res.body.data.uploadAvatar.avatarUrl).toMatch(AVATAR_URL);
  return res.body.data.uploadAvatar.avatarUrl;
}

const upload = async (image: Buffer, session = user) => uploaded(await gqlUpload(t, session.accessToken, image), session);

async function gqlMe(token: string): Promise<{ avatarUrl: string | null }> {
  const res = await t.http.gql(MeDocument, {}, { token });
  expect(res.body.errors).toBeUndefined();
  return res.body.data!.me;
}

describe('uploadAvatar: accepted images', () => {
  it('takes a browser-style FormData upload and serves a 512x512 WebP without EXIF, GPS, XMP or ICC', async () => {
    const form = new FormData();
    form.append('operations', JSON.stringify({ query: UPLOAD_MUTATION, variables: { file: null } }));
    form.append('map', JSON.stringify({ '0': ['variables.file'] }));
    form.append('0', new Blob([new Uint8Array(await jpegWithMetadata())], { type: 'image/jpeg' }), 'holiday.jpg');
    const res = await fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${user.accessToken}`, 'apollo-require-preflight': 'true' },
      body: form,
    });
    const body = (await res.json()) as any;
    const url = uploaded({ status: res.status, body, headers: {}, raw: Buffer.alloc(0) });
    const { meta } = await fetchAvatar(t, url);
    expect([meta.width, meta.height]).toEqual([512, 512]);
    expect((await gqlMe(user.accessToken)).avatarUrl).toBe(url);
    expect((await restMe(t, user.accessToken)).avatarUrl).toBe(url);
    expect(await avatarFiles(t)).toEqual([keyOf(url)]);
    expect(await settledTmpFiles(t)).toEqual([]);
  });

  it('accepts PNG, WebP and GIF by their bytes, and crops 300x200 to 200x200', async () => {
    for (const format of ['png', 'webp', 'gif'] as const) {
      const res = await gqlUpload(t, user.accessToken, await solid(80, 120, format), { filename: 'x.bin', contentType: 'text/plain' });
      const { meta } = await fetchAvatar(t, uploaded(res));
      expect({ format, size: [meta.width, meta.height] }).toEqual({ format, size: [80, 80] });
    }
    const { meta } = await fetchAvatar(t, await upload(await bands()));
    expect([meta.width, meta.height]).toEqual([200, 200]);
  });

  it('never uses the client filename: ../../etc/passwd.png is stored under a generated key', async () => {
    const filename = '../../etc/passwd.png';
    const url = uploaded(await gqlUpload(t, user.accessToken, await solid(32, 32, 'png'), { filename, contentType: 'image/png' }));
    expect(await avatarFiles(t)).toEqual([keyOf(url)]);
    for (const base of ['avatars', 'tmp', '.']) expect(existsSync(resolve(t.dataDir, base, filename))).toBe(false);
    expect(existsSync(resolve(t.dataDir, 'etc'))).toBe(false);
  });

  it('replaces the avatar: a new URL, the old one answers 404, and a refused upload changes nothing', async () => {
    const first = await upload(await solid(64, 64, 'png', '#f00'));
    const second = await upload(await solid(64, 64, 'png', '#00f'));
    expect(second).not.toBe(first);
    const old = await send(`${t.url}${first}`, 'GET', {});
    expect({ status: old.status, code: old.body.code }).toEqual({ status: 404, code: 'NOT_FOUND' });
    for (const [file, code] of [
      [HTML, 'UNSUPPORTED_MEDIA_TYPE'],
      [(await noise(200, 200, 'png')).subarray(0, 4000), 'INVALID_IMAGE'],
      [await noise(200, 200, 'png'), 'PAYLOAD_TOO_LARGE'],
    ] as const) {
      expectGqlError(await gqlUpload(t, user.accessToken, file), 200, code);
      expect((await gqlMe(user.accessToken)).avatarUrl).toBe(second);
      await fetchAvatar(t, second);
    }
    expect(await avatarFiles(t)).toEqual([keyOf(second)]);
    expect(await settledTmpFiles(t)).toEqual([]);
  });
});

describe('uploadAvatar: refusals', () => {
  it('refuses HTML, SVG, text, PDF and HTML posing as PNG with UNSUPPORTED_MEDIA_TYPE', async () => {
    const cases = [
      { file: HTML, filename: 'page.html', contentType: 'text/html' },
      { file: SVG, filename: 'logo.svg', contentType: 'image/svg+xml' },
      { file: TEXT, filename: 'a.txt', contentType: 'text/plain' },
      { file: PDF, filename: 'cv.pdf', contentType: 'application/pdf' },
      { file: HTML, filename: 'x.png', contentType: 'image/png' },
    ];
    for (const { file, ...declared } of cases) expectGqlError(await gqlUpload(t, user.accessToken, file, declared), 200, 'UNSUPPORTED_MEDIA_TYPE');
    expect((await gqlMe(user.accessToken)).avatarUrl).toBeNull();
    await expectNothingStored(t);
  });

  it('refuses truncated images, images over 4096 pixels a side and a 50000x50000 PNG bomb with INVALID_IMAGE', async () => {
    const jpeg = await noise(200, 200, 'jpeg');
    const png = await noise(200, 200, 'png');
    for (const file of [jpeg.subarray(0, jpeg.length >> 1), png.subarray(0, png.length >> 1), await solid(4097, 8, 'png'), await solid(8, 4097, 'png')]) {
      expectGqlError(await gqlUpload(t, user.accessToken, file), 200, 'INVALID_IMAGE');
    }
    const started = Date.now();
    const bomb = await gqlUpload(t, user.accessToken, pngBomb(), { filename: 'bomb.png', contentType: 'image/png' });
    expect(Date.now() - started).toBeLessThan(1000);
    expectGqlError(bomb, 200, 'INVALID_IMAGE');
    await expectNothingStored(t);
  });

  it('takes a file of exactly AVATAR_MAX_BYTES and refuses one byte more with PAYLOAD_TOO_LARGE', async () => {
    const png = await solid(64, 64, 'png');
    const url = await upload(padPng(png, MAX_BYTES));
    expectGqlError(await gqlUpload(t, user.accessToken, padPng(png, MAX_BYTES + 1)), 200, 'PAYLOAD_TOO_LARGE');
    expect(await avatarFiles(t)).toEqual([keyOf(url)]);
    expect(await settledTmpFiles(t)).toEqual([]);
  });

  it('stops staging at the limit while a huge body is still arriving, and drops what it staged', async () => {
    // graphql-upload answers only once the request has ended, so the answer is not awaited here.
    const { body, contentType } = gqlUploadBody([{ name: '0', filename: 'big.png', contentType: 'image/png', data: Buffer.alloc(4 * MAX_BYTES) }]);
    const headers = { 'content-type': contentType, 'apollo-require-preflight': 'true', authorization: `Bearer ${user.accessToken}` };
    const raw = await RawUpload.open(t, '/graphql', headers, 200 * 1024 * 1024);
    const fileStart = body.indexOf('\r\n\r\n', body.indexOf('filename="big.png"')) + 4;
    try {
      await raw.write(body.subarray(0, fileStart + MAX_BYTES / 2));
      expect(await waitFor(async () => (await tmpFiles(t)).length === 1, 2_000, 20)).toBe(true);
      await raw.write(body.subarray(fileStart + MAX_BYTES / 2, fileStart + 4 * MAX_BYTES));
      expect(await waitFor(async () => (await tmpFiles(t)).length === 0, 2_000, 20)).toBe(true);
    } finally {
      raw.destroy();
    }
    await expectNothingStored(t);
    await upload(await solid(32, 32, 'png'));
  });

  it('refuses more than one file with 400 VALIDATION_FAILED, as REST does, and stores nothing', async () => {
    const png = await solid(32, 32, 'png');
    const res = await gqlUpload(
      t,
      user.accessToken,
      [
        { name: '0', filename: 'a.png', data: png },
        { name: '1', filename: 'b.png', data: png },
      ],
      { map: { '0': ['variables.file'], '1': ['variables.file'] } },
    );
    expectGqlError(res, 400, 'VALIDATION_FAILED');
    expect(res.body.errors[0].extensions.fields).toEqual({ file: 'Send exactly one file' });
    expect((await gqlMe(user.accessToken)).avatarUrl).toBeNull();
    await expectNothingStored(t);
  });
});

describe('uploadAvatar: CSRF prevention, authentication and aborted uploads', () => {
  it('refuses a multipart request without Apollo-Require-Preflight with 400, storing nothing', async () => {
    const res = await gqlUpload(t, user.accessToken, await solid(32, 32, 'png'), { preflight: false });
    expectGqlError(res, 400, 'VALIDATION_FAILED');
    expect((await gqlMe(user.accessToken)).avatarUrl).toBeNull();
    await expectNothingStored(t);
  });

  it('checks the preflight header before the token', async () => {
    expectGqlError(await gqlUpload(t, undefined, await solid(32, 32, 'png'), { preflight: false }), 400, 'VALIDATION_FAILED');
    await expectNothingStored(t);
  });

  it('refuses an upload without a valid token with 401 UNAUTHENTICATED before storing a byte', async () => {
    for (const token of [undefined, 'not-a-jwt', `${user.accessToken}x`]) {
      const res = await gqlUpload(t, token, await solid(32, 32, 'png'));
      expectGqlError(res, 401, 'UNAUTHENTICATED');
      expect(res.headers['www-authenticate']).toContain('Bearer error="invalid_token"');
    }
    await expectNothingStored(t);
  });

  it('answers 401 to an unauthenticated upload before its body has been sent', async () => {
    const { body, contentType } = gqlUploadBody([{ name: '0', filename: 'a.png', data: Buffer.alloc(4096) }]);
    const raw = await RawUpload.open(t, '/graphql', { 'content-type': contentType, 'apollo-require-preflight': 'true' }, 50 * 1024 * 1024);
    try {
      await raw.write(body.subarray(0, 2048));
      expect(await raw.response(2_000)).toMatch(/^HTTP\/1\.1 401 /);
    } finally {
      raw.destroy();
    }
    await expectNothingStored(t);
  });

  it('removes the staged file when the client hangs up mid-upload, and keeps serving', async () => {
    const image = await noise(120, 120, 'png');
    const { body, contentType } = gqlUploadBody([{ name: '0', filename: 'a.png', contentType: 'image/png', data: image }]);
    const headers = { 'content-type': contentType, 'apollo-require-preflight': 'true', authorization: `Bearer ${user.accessToken}` };
    const raw = await RawUpload.open(t, '/graphql', headers, body.length);
    try {
      await raw.write(body.subarray(0, body.length >> 1));
      expect(await waitFor(async () => (await tmpFiles(t)).length > 0, 2_000, 20)).toBe(true);
    } finally {
      raw.destroy();
    }
    expect(await settledTmpFiles(t)).toEqual([]);
    expect(await avatarFiles(t)).toEqual([]);
    expect((await gqlMe(user.accessToken)).avatarUrl).toBeNull();
    await upload(image);
  });
});

describe('uploadAvatar at the default AVATAR_MAX_BYTES (5 MiB)', () => {
  const d = useTestServer();

  it('refuses 5 MiB + 1 byte with PAYLOAD_TOO_LARGE', async () => {
    const session = await signInWithCode(d);
    const res = await gqlUpload(d, session.accessToken, padPng(await solid(64, 64, 'png'), 5 * 1024 * 1024 + 1));
    expectGqlError(res, 200, 'PAYLOAD_TOO_LARGE');
    expect(await avatarFiles(d)).toEqual([]);
    expect(await settledTmpFiles(d)).toEqual([]);
  });
});
