import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm, writeFile, type FileHandle } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { AvatarStorage, StoredAvatar } from './avatar-storage.js';

const SAFE_KEY = /^[a-f0-9]{32}\.webp$/;

/** Avatars as files in one directory; writes go to a temporary name and are renamed into place. */
export class LocalAvatarStorage implements AvatarStorage {
  readonly description: string;
  private readonly dir: string;
  private ready?: Promise<unknown>;

  constructor(dir: string) {
    this.dir = resolve(dir);
    this.description = `local disk ${this.dir}`;
  }

  async put(key: string, bytes: Buffer): Promise<void> {
    const path = this.path(key);
    this.ready ??= mkdir(this.dir, { recursive: true });
    await this.ready;
    const temporary = `${path}.${randomBytes(6).toString('hex')}.partial`;
    try {
      await writeFile(temporary, bytes, { flag: 'wx' });
      await rename(temporary, path);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
  }

  /**
   * Opens the file before anything else: a replacement that deletes it afterwards cannot tear the
   * answer, as size and bytes come from the open file, and one deleted before is simply not found.
   */
  async get(key: string): Promise<StoredAvatar | undefined> {
    let handle: FileHandle;
    try {
      handle = await open(this.path(key), 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    try {
      const { size } = await handle.stat();
      return { body: handle.createReadStream(), size };
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.path(key), { force: true });
  }

  /** Keys are checked again here, so no caller can reach a path outside the directory. */
  private path(key: string): string {
    if (!SAFE_KEY.test(key)) throw new Error(`unsafe avatar key ${JSON.stringify(key)}`);
    return join(this.dir, key);
  }
}

export function isAvatarKey(key: string): boolean {
  return SAFE_KEY.test(key);
}
