// Issue 7, part 2: avatars in an S3-compatible bucket (s3rver on 127.0.0.1), uploaded over REST and
// GraphQL multipart, served back, replaced and deleted; nothing written under DATA_DIR/avatars.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { CreateBucketCommand, GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import sharp from 'sharp';
import { clearRateLimits, type Session, signInWithCode } from '../helpers/factories.js';
import { newPhone, TEST_JWT_SECRET, useTestServer } from '../helpers/server.js';
import { expectProblem } from '../rest/support.js';
import { signInByOutbox, startService } from './support.js';

const BUCKET = 'meeting-avatars';
const PREFIX = 'team-a/avatars/';
const AVATAR_URL = /^\/api\/v1\/avatars\/([0-9a-f]{32}\.webp)$/;

let s3dir: string;
let s3server: S3rver;
let s3: S3Client;
let user: Session;
let s3Env: Record<string, string>;

beforeAll(async () => {
  s3dir = mkdtempSync(join(tmpdir(), 'meeting-accounts-s3rver-'));
  s3server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: s3dir });
  const { port } = await s3server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  s3 = new S3Client({
    region: 'us-east-1',
    endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
  s3Env = {
    AVATAR_STORAGE: 's3',
    S3_BUCKET: BUCKET,
    S3_REGION: 'us-east-1',
    S3_ENDPOINT: endpoint,
    S3_ACCESS_KEY_ID: 'S3RVER',
    S3_SECRET_ACCESS_KEY: 'S3RVER',
    S3_FORCE_PATH_STYLE: 'true',
    S3_PREFIX: PREFIX,
  };
});
const t = useTestServer(() => s3Env);
afterAll(async () => {
  s3?.destroy();
  await s3server?.close().catch(() => undefined);
  if (s3dir) await rm(s3dir, { recursive: true, force: true });
});
beforeEach(async () => {
  user = await signInWithCode(t);
});

const solid = (colour: string) => sharp({ create: { width: 96, height: 64, channels: 3, background: colour } }).png().toBuffer();

/** Every object key in the bucket. */
async function bucketKeys(): Promise<string[]> {
  const listed = await s3.send(new ListObjectsV2Command({ Bucket: BUCKET }));
  return (listed.Contents ?? []).map((o) => o.Key!).sort();
}

async function objectBytes(key: string): Promise<{ bytes: Buffer; contentType?: string }> {
  const object = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: `${PREFIX}${key}` }));
  return { bytes: Buffer.from(await object.Body!.transformToByteArray()), contentType: object.ContentType };
}

function imageForm(field: string, image: Buffer, extra: [string, string][] = []): FormData {
  const form = new FormData();
  for (const [name, value] of extra) form.append(name, value);
  form.append(field, new Blob([new Uint8Array(image)], { type: 'image/png' }), 'me.png');
  return form;
}

/** POST /api/v1/users/me/avatar; returns the new avatar key. */
async function restUpload(image: Buffer, session = user): Promise<string> {
  const res = await fetch(`${t.url}/api/v1/users/me/avatar`, {
    method: 'POST',
    headers: { authorization: `Bearer ${session.accessToken}` },
    body: imageForm('file', image),
  });
  const body = (await res.json()) as any;
  expect({ status: res.status, id: body.id }).toEqual({ status: 200, id: session.userId });
  expect(body.avatarUrl).toMatch(AVATAR_URL);
  return AVATAR_URL.exec(body.avatarUrl)![1]!;
}

/** uploadAvatar over GraphQL multipart; returns the new avatar key. */
async function gqlUpload(image: Buffer, session = user): Promise<string> {
  const query = 'mutation($file: Upload!) { uploadAvatar(file: $file) { id avatarUrl } }';
  const res = await fetch(`${t.url}/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${session.accessToken}`, 'apollo-require-preflight': 'true' },
    body: imageForm('0', image, [
      ['operations', JSON.stringify({ query, variables: { file: null } })],
      ['map', JSON.stringify({ '0': ['variables.file'] })],
    ]),
  });
  const body = (await res.json()) as any;
  expect({ status: res.status, errors: body.errors }).toEqual({ status: 200, errors: undefined });
  expect(body.data.uploadAvatar.id).toBe(session.userId);
  expect(body.data.uploadAvatar.avatarUrl).toMatch(AVATAR_URL);
  return AVATAR_URL.exec(body.data.uploadAvatar.avatarUrl)![1]!;
}

/** GET /api/v1/avatars/{key}: a WebP, byte for byte the object in the bucket. */
async function expectServed(key: string): Promise<void> {
  const res = await fetch(`${t.url}/api/v1/avatars/${key}`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('image/webp');
  const bytes = Buffer.from(await res.arrayBuffer());
  expect(Number(res.headers.get('content-length'))).toBe(bytes.length);
  expect((await sharp(bytes).metadata()).format).toBe('webp');
  const stored = await objectBytes(key);
  expect(stored.contentType).toBe('image/webp');
  expect(bytes.equals(stored.bytes)).toBe(true);
}

async function expectGone(key: string): Promise<void> {
  expect(await bucketKeys()).not.toContain(`${PREFIX}${key}`);
  expectProblem(await t.http.get(`/api/v1/avatars/${key}`), 404, 'NOT_FOUND');
}

/** The local storage directory is never used. */
function expectNothingLocal(): void {
  const dir = join(t.dataDir, 'avatars');
  expect(existsSync(dir) ? readdirSync(dir) : []).toEqual([]);
}

describe('S3 avatar storage', () => {
  it('stores a REST upload as one object under S3_PREFIX and serves it back as image/webp', async () => {
    const before = await bucketKeys();
    const key = await restUpload(await solid('#c33'));
    expect((await bucketKeys()).filter((k) => !before.includes(k))).toEqual([`${PREFIX}${key}`]);
    await expectServed(key);
    const me = await t.http.get('/api/v1/users/me', { token: user.accessToken });
    expect(me.body.avatarUrl).toBe(`/api/v1/avatars/${key}`);
    expectNothingLocal();
  });

  it('stores a GraphQL multipart upload, and a replacement deletes the old object and 404s its URL', async () => {
    const first = await gqlUpload(await solid('#3c3'));
    await expectServed(first);

    const second = await restUpload(await solid('#33c'));
    expect(second).not.toBe(first);
    await expectServed(second);
    await expectGone(first);

    const third = await gqlUpload(await solid('#cc3'));
    await expectServed(third);
    await expectGone(second);
    expect((await bucketKeys()).filter((k) => [first, second, third].some((key) => k.endsWith(key)))).toEqual([`${PREFIX}${third}`]);
    expectNothingLocal();
  });

  it("keeps one user's object when another user replaces theirs", async () => {
    const other = await signInWithCode(t);
    const mine = await restUpload(await solid('#a5a'));
    const theirs = await restUpload(await solid('#5aa'), other);
    await restUpload(await solid('#aa5'), other);
    await expectGone(theirs);
    await expectServed(mine);
  });

  it('deletes the object with the account', async () => {
    const key = await restUpload(await solid('#777'));
    await clearRateLimits(t); // the sign-in code was sent a moment ago
    const sent = await t.http.post('/api/v1/auth/send-code', { phone: user.phone, purpose: 'delete-account' });
    expect(sent.status).toBe(200);
    const code = await t.codeFor(user.phone, 'delete-account');
    const deleted = await t.http.request('DELETE', '/api/v1/users/me', { token: user.accessToken, body: { code } });
    expect(deleted.status).toBe(204);
    await expectGone(key);
  });

  it('answers 404 NOT_FOUND for a well-formed key that is not in the bucket', async () => {
    expectProblem(await t.http.get(`/api/v1/avatars/${'0'.repeat(32)}.webp`), 404, 'NOT_FOUND');
  });
});

// Last: it stops the S3 server. Run in a real service process: inside jest's module sandbox the
// AWS SDK cannot recognise Node's own network errors (another realm's Error), so the mapping of a
// refused connection is checked where it matters, in the built service.
describe('S3 avatar storage, bucket unreachable', () => {
  it('answers 503 SERVICE_UNAVAILABLE to an upload and a fetch, and the account keeps its avatar URL', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'meeting-accounts-s3-proc-'));
    const outbox = join(dir, 'sms.jsonl');
    const service = await startService({
      ...s3Env,
      NODE_ENV: 'test',
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: 'silent',
      DATABASE_URL: process.env.TEST_WORKER_DATABASE_URL!,
      DATA_DIR: dir,
      JWT_SECRET: TEST_JWT_SECRET,
      SMS_PROVIDER: 'file',
      SMS_OUTBOX_FILE: outbox,
      BCRYPT_COST: '4',
    });
    try {
      const session = await signInByOutbox(service.url, outbox, newPhone());
      const upload = async (colour: string) => {
        const res = await fetch(`${service.url}/api/v1/users/me/avatar`, {
          method: 'POST',
          headers: { authorization: `Bearer ${session.accessToken}` },
          body: imageForm('file', await solid(colour)),
        });
        return { status: res.status, body: (await res.json()) as any };
      };
      const first = await upload('#159');
      expect(first.status).toBe(200);
      const url = first.body.avatarUrl as string;
      expect((await fetch(`${service.url}${url}`)).status).toBe(200);

      await s3server.close();
      const started = Date.now();
      const refused = await upload('#951');
      expect({ status: refused.status, code: refused.body.code }).toEqual({ status: 503, code: 'SERVICE_UNAVAILABLE' });
      const fetched = await fetch(`${service.url}${url}`);
      const problem = (await fetched.json()) as any;
      expect({ status: fetched.status, code: problem.code }).toEqual({ status: 503, code: 'SERVICE_UNAVAILABLE' });
      expect(Date.now() - started).toBeLessThan(5_000);
      const me = await fetch(`${service.url}/api/v1/users/me`, { headers: { authorization: `Bearer ${session.accessToken}` } });
      expect(((await me.json()) as any).avatarUrl).toBe(url);
      expect(existsSync(join(dir, 'avatars')) ? readdirSync(join(dir, 'avatars')) : []).toEqual([]);
    } finally {
      await service.kill();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
