import { beforeEach, describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { signInWithCode, type Session } from '../helpers/factories.js';
import { useTestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';
import {
  animatedGif,
  AVATAR_URL,
  avatarFiles,
  bands,
  expectNothingStored,
  expectUploadProblem,
  fetchAvatar,
  HTML,
  jpegWithMetadata,
  multipart,
  noise,
  padPng,
  PDF,
  pixel,
  pngBomb,
  RawUpload,
  resetAvatars,
  restMe,
  send,
  restUpload,
  settledTmpFiles,
  solid,
  SVG,
  TEXT,
  tmpFiles,
} from './support.js';

const MAX_BYTES = 65_536;
const USER_KEYS = ['avatarUrl', 'createdAt', 'hasPassword', 'id', 'lastLoginAt', 'locale', 'nickname', 'phone', 'role'];

const t = useTestServer({ AVATAR_MAX_BYTES: String(MAX_BYTES) });
let user: Session;
beforeEach(async () => {
  await resetAvatars(t);
  user = await signInWithCode(t);
});

const keyOf = (url: string) => url.slice('/api/v1/avatars/'.length);

/** Uploads `image` and asserts success; returns the new avatar URL. */
async function uploadOk(image: Buffer, session = user): Promise<string> {
  const res = await restUpload(t, session.accessToken, image);
  expect({ status: res.status, code: res.body?.code }).toEqual({ status: 200, code: undefined });
  expect(res.body.avatarUrl).toMatch(AVATAR_URL);
  return res.body.avatarUrl;
}

describe('POST /api/v1/users/me/avatar: accepted images', () => {
  it('stores a JPEG as a 512x512 WebP without EXIF, GPS, XMP or ICC, and returns the User', async () => {
    const res = await restUpload(t, user.accessToken, await jpegWithMetadata(), { filename: 'me.jpg', contentType: 'image/jpeg' });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(USER_KEYS);
    expect(res.body).toMatchObject({ id: user.userId, phone: user.phone });
    expect(res.body.avatarUrl).toMatch(AVATAR_URL);
    const { meta } = await fetchAvatar(t, res.body.avatarUrl);
    expect([meta.width, meta.height]).toEqual([512, 512]);
    expect((await restMe(t, user.accessToken)).avatarUrl).toBe(res.body.avatarUrl);
    expect(await avatarFiles(t)).toEqual([keyOf(res.body.avatarUrl)]);
    expect(await settledTmpFiles(t)).toEqual([]);
  });

  it('accepts PNG, WebP and GIF by their bytes, whatever name and type the client declares', async () => {
    for (const format of ['png', 'webp', 'gif'] as const) {
      const res = await restUpload(t, user.accessToken, await solid(96, 64, format), { filename: 'notes.txt', contentType: 'text/plain' });
      expect({ format, status: res.status }).toEqual({ format, status: 200 });
      const { meta } = await fetchAvatar(t, res.body.avatarUrl);
      expect([meta.width, meta.height]).toEqual([64, 64]);
    }
  });

  it('keeps the first frame of an animated GIF', async () => {
    const { bytes, meta } = await fetchAvatar(t, await uploadOk(await animatedGif()));
    expect(meta.pages ?? 1).toBe(1);
    const [r, , b] = await pixel(bytes, 32, 32);
    expect(r).toBeGreaterThan(200);
    expect(b).toBeLessThan(60);
  });

  it('crops a 300x200 image to its 200x200 centre, without upscaling', async () => {
    const { bytes, meta } = await fetchAvatar(t, await uploadOk(await bands()));
    expect([meta.width, meta.height]).toEqual([200, 200]);
    // The red (left) and blue (right) bands are cut off: both edges are green.
    for (const x of [4, 100, 195]) {
      const [r, g, b] = await pixel(bytes, x, 100);
      expect({ x, green: g > 200 && r < 60 && b < 60 }).toEqual({ x, green: true });
    }
  });

  it('never uses the client filename: ../../etc/passwd.png is stored under a generated key', async () => {
    const filename = '../../etc/passwd.png';
    const res = await restUpload(t, user.accessToken, await solid(32, 32, 'png'), { filename, contentType: 'image/png' });
    expect(res.status).toBe(200);
    expect(res.body.avatarUrl).toMatch(AVATAR_URL);
    expect(await avatarFiles(t)).toEqual([keyOf(res.body.avatarUrl)]);
    for (const base of ['avatars', 'tmp', '.']) expect(existsSync(resolve(t.dataDir, base, filename))).toBe(false);
    expect(existsSync(resolve(t.dataDir, 'etc'))).toBe(false);
    expect(await settledTmpFiles(t)).toEqual([]);
  });
});

describe('POST /api/v1/users/me/avatar: replacing', () => {
  it('gives a new URL, deletes the old file and answers the old URL with 404', async () => {
    const first = await uploadOk(await solid(64, 64, 'png', '#f00'));
    const second = await uploadOk(await solid(64, 64, 'png', '#00f'));
    expect(second).not.toBe(first);
    expect((await restMe(t, user.accessToken)).avatarUrl).toBe(second);
    await fetchAvatar(t, second);
    expectUploadProblem(await send(`${t.url}${first}`, 'GET', {}), 404, 'NOT_FOUND');
    expect(await avatarFiles(t)).toEqual([keyOf(second)]);
  });

  it('keeps URL and file when the same image is uploaded again', async () => {
    const image = await solid(64, 64, 'jpeg');
    const first = await uploadOk(image);
    expect(await uploadOk(image)).toBe(first);
    await fetchAvatar(t, first);
  });

  it("does not touch another user's avatar made from the same image", async () => {
    const other = await signInWithCode(t);
    const image = await solid(64, 64, 'png');
    const mine = await uploadOk(image);
    const theirs = await uploadOk(image, other);
    expect(theirs).not.toBe(mine);
    await uploadOk(await solid(64, 64, 'png', '#123'));
    await fetchAvatar(t, theirs);
    expect((await restMe(t, other.accessToken)).avatarUrl).toBe(theirs);
  });

  it('leaves the previous avatar in place when an upload is refused', async () => {
    const url = await uploadOk(await solid(64, 64, 'png'));
    const refused = [
      { file: HTML, status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' },
      { file: (await noise(200, 200, 'jpeg')).subarray(0, 3000), status: 422, code: 'INVALID_IMAGE' },
      { file: await noise(200, 200, 'png'), status: 413, code: 'PAYLOAD_TOO_LARGE' },
    ];
    for (const { file, status, code } of refused) {
      expectUploadProblem(await restUpload(t, user.accessToken, file), status, code);
      expect((await restMe(t, user.accessToken)).avatarUrl).toBe(url);
      await fetchAvatar(t, url);
    }
    expect(await avatarFiles(t)).toEqual([keyOf(url)]);
    expect(await settledTmpFiles(t)).toEqual([]);
  });
});

describe('POST /api/v1/users/me/avatar: refusals', () => {
  it('refuses HTML, SVG, text, PDF and an HTML file posing as PNG with 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    const cases = [
      { file: HTML, filename: 'page.html', contentType: 'text/html' },
      { file: SVG, filename: 'logo.svg', contentType: 'image/svg+xml' },
      { file: TEXT, filename: 'a.txt', contentType: 'text/plain' },
      { file: PDF, filename: 'cv.pdf', contentType: 'application/pdf' },
      { file: HTML, filename: 'x.png', contentType: 'image/png' },
    ];
    for (const { file, ...declared } of cases) {
      const res = await restUpload(t, user.accessToken, file, declared);
      expectUploadProblem(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
    }
    expect((await restMe(t, user.accessToken)).avatarUrl).toBeNull();
    await expectNothingStored(t);
  });

  it('refuses a truncated JPEG or PNG with 422 INVALID_IMAGE', async () => {
    for (const format of ['jpeg', 'png'] as const) {
      const whole = await noise(200, 200, format);
      const res = await restUpload(t, user.accessToken, whole.subarray(0, whole.length >> 1), { contentType: `image/${format}` });
      expectUploadProblem(res, 422, 'INVALID_IMAGE');
    }
    await expectNothingStored(t);
  });

  it('refuses images wider or taller than 4096 pixels with 422 INVALID_IMAGE, and takes 4096', async () => {
    for (const [width, height] of [
      [4097, 8],
      [8, 4097],
    ]) {
      expectUploadProblem(await restUpload(t, user.accessToken, await solid(width!, height!, 'png')), 422, 'INVALID_IMAGE');
    }
    await expectNothingStored(t);
    const { meta } = await fetchAvatar(t, await uploadOk(await solid(4096, 8, 'png')));
    expect(meta.width).toBe(8);
  });

  it('refuses a 50000x50000 PNG header (pixel bomb) with 422 in well under a second', async () => {
    const started = Date.now();
    const res = await restUpload(t, user.accessToken, pngBomb(), { filename: 'bomb.png', contentType: 'image/png' });
    expect(Date.now() - started).toBeLessThan(1000);
    expectUploadProblem(res, 422, 'INVALID_IMAGE');
    await expectNothingStored(t);
  });

  it('takes a file of exactly AVATAR_MAX_BYTES and refuses one byte more with 413 PAYLOAD_TOO_LARGE', async () => {
    const png = await solid(64, 64, 'png');
    const url = await uploadOk(padPng(png, MAX_BYTES));
    expectUploadProblem(await restUpload(t, user.accessToken, padPng(png, MAX_BYTES + 1)), 413, 'PAYLOAD_TOO_LARGE');
    expect(await avatarFiles(t)).toEqual([keyOf(url)]);
    expect(await settledTmpFiles(t)).toEqual([]);
  });

  it('answers 413 as soon as the limit is passed, without waiting for the rest of a huge body', async () => {
    // Announces 200 MiB, sends four times the limit, then waits.
    const { body, contentType } = multipart([{ name: 'file', filename: 'big.png', contentType: 'image/png', data: Buffer.alloc(4 * MAX_BYTES) }]);
    const headers = { 'content-type': contentType, authorization: `Bearer ${user.accessToken}` };
    const upload = await RawUpload.open(t, '/api/v1/users/me/avatar', headers, 200 * 1024 * 1024);
    try {
      await upload.write(body.subarray(0, 4 * MAX_BYTES));
      expect(await upload.response(2_000)).toMatch(/^HTTP\/1\.1 413 /);
    } finally {
      upload.destroy();
    }
    expect(await settledTmpFiles(t)).toEqual([]);
  });

  it('refuses anything but one file in the field "file" with 400 VALIDATION_FAILED', async () => {
    const png = await solid(32, 32, 'png');
    const bodies = [
      [{ name: 'file', filename: 'a.png', data: png }, { name: 'file', filename: 'b.png', data: png }],
      [{ name: 'avatar', filename: 'a.png', data: png }],
      [{ name: 'file', data: 'not a file' }],
      [],
    ];
    for (const parts of bodies) expectUploadProblem(await restUpload(t, user.accessToken, parts), 400, 'VALIDATION_FAILED');
    const json = await t.http.post('/api/v1/users/me/avatar', { file: png.toString('base64') }, { token: user.accessToken });
    expect({ status: json.status, code: json.body.code }).toEqual({ status: 400, code: 'VALIDATION_FAILED' });
    expect((await restMe(t, user.accessToken)).avatarUrl).toBeNull();
    await expectNothingStored(t);
  });
});

describe('POST /api/v1/users/me/avatar: authentication and aborted uploads', () => {
  it('refuses an upload without a valid token with 401 before storing a byte', async () => {
    const png = await solid(32, 32, 'png');
    for (const token of [undefined, 'not-a-jwt', `${user.accessToken}x`]) {
      const res = await restUpload(t, token, png);
      expectUploadProblem(res, 401, 'UNAUTHENTICATED');
      expect(res.headers['www-authenticate']).toContain('Bearer error="invalid_token"');
    }
    await expectNothingStored(t);
  });

  it('answers 401 to an unauthenticated upload before its body has been sent', async () => {
    const { body, contentType } = multipart([{ name: 'file', filename: 'a.png', data: Buffer.alloc(4096) }]);
    const upload = await RawUpload.open(t, '/api/v1/users/me/avatar', { 'content-type': contentType }, 50 * 1024 * 1024);
    try {
      await upload.write(body.subarray(0, 1024));
      expect(await upload.response(2_000)).toMatch(/^HTTP\/1\.1 401 /);
    } finally {
      upload.destroy();
    }
    await expectNothingStored(t);
  });

  it('removes the staged file when the client hangs up mid-upload, and keeps serving', async () => {
    const image = await noise(120, 120, 'png');
    const { body, contentType } = multipart([{ name: 'file', filename: 'a.png', contentType: 'image/png', data: image }]);
    const upload = await RawUpload.open(t, '/api/v1/users/me/avatar', { 'content-type': contentType, authorization: `Bearer ${user.accessToken}` }, body.length);
    try {
      await upload.write(body.subarray(0, body.length >> 1));
      expect(await waitFor(async () => (await tmpFiles(t)).length > 0, 2_000, 20)).toBe(true);
    } finally {
      upload.destroy();
    }
    expect(await settledTmpFiles(t)).toEqual([]);
    expect(await avatarFiles(t)).toEqual([]);
    expect((await restMe(t, user.accessToken)).avatarUrl).toBeNull();
    await uploadOk(image);
  });
});

describe('the default AVATAR_MAX_BYTES (5 MiB)', () => {
  const d = useTestServer();

  it('refuses 5 MiB + 1 byte with 413 PAYLOAD_TOO_LARGE and takes exactly 5 MiB', async () => {
    const session = await signInWithCode(d);
    const png = await solid(64, 64, 'png');
    expectUploadProblem(await restUpload(d, session.accessToken, padPng(png, 5 * 1024 * 1024 + 1)), 413, 'PAYLOAD_TOO_LARGE');
    expect(await avatarFiles(d)).toEqual([]);
    expect(await settledTmpFiles(d)).toEqual([]);
    const ok = await restUpload(d, session.accessToken, padPng(png, 5 * 1024 * 1024));
    expect(ok.status).toBe(200);
    expect(await avatarFiles(d)).toEqual([keyOf(ok.body.avatarUrl)]);
  });
});

