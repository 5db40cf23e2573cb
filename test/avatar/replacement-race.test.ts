// An avatar deleted while it is being served (a replacement deletes the old file): the answer is a
// whole 200 or a 404 NOT_FOUND, never headers followed by a torn connection, nor an error logged.
import { describe, expect, it } from '@jest/globals';
import { rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { text } from 'node:stream/consumers';
import { LocalAvatarStorage } from '../../src/modules/avatar/local-storage.js';
import { signInWithCode } from '../helpers/factories.js';
import { useTestServer } from '../helpers/server.js';
import { resetAvatars, restUpload, send, solid } from './support.js';

describe('LocalAvatarStorage.get', () => {
  it('serves the whole file when it is deleted right after being found', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'meeting-accounts-avatars-'));
    try {
      const storage = new LocalAvatarStorage(dir);
      const key = `${'ab'.repeat(16)}.webp`;
      const bytes = 'x'.repeat(200_000);
      await storage.put(key, Buffer.from(bytes));
      const avatar = await storage.get(key);
      // Before the stream has done anything: the file must already be open.
      rmSync(join(dir, key));
      expect(avatar?.size).toBe(bytes.length);
      expect(await text(avatar!.body)).toBe(bytes);
      expect(await storage.get(key)).toBeUndefined();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('GET /api/v1/avatars/{key} while the avatar is replaced', () => {
  const t = useTestServer({}, { captureLogs: true });

  it('answers each request of the old URL with the whole image or 404, and logs no error', async () => {
    await resetAvatars(t);
    const user = await signInWithCode(t);
    const images = await Promise.all(['#102030', '#203040'].map((colour) => solid(256, 256, 'png', colour)));
    let current = (await restUpload(t, user.accessToken, images[0]!)).body.avatarUrl as string;
    const answers = new Map<string, number>();
    const getOnce = (url: string) =>
      send(`${t.url}${url}`, 'GET', {}).then(
        (res) => (res.status === 200 && res.raw.length === Number(res.headers['content-length']) ? 'whole 200' : String(res.status)),
        (error: Error) => `torn: ${error.message}`,
      );
    for (let round = 1; round <= 20; round++) {
      const old = current;
      let replacing = true;
      // Four clients read the old URL over and over while the replacement runs, then once more.
      const readers = Array.from({ length: 4 }, async () => {
        do {
          const answer = await getOnce(old);
          answers.set(answer, (answers.get(answer) ?? 0) + 1);
        } while (replacing);
      });
      const replaced = await restUpload(t, user.accessToken, images[round % 2]!);
      replacing = false;
      await Promise.all(readers);
      expect(replaced.status).toBe(200);
      current = replaced.body.avatarUrl;
    }
    expect([...answers.keys()].filter((answer) => answer !== 'whole 200' && answer !== '404')).toEqual([]);
    expect(t.logs().split('\n').filter((line) => /"level":(50|60)\b/.test(line))).toEqual([]);
  });
});
