import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { AppError, ErrorCode } from '../../shared/errors/app-error.js';

export interface StagedUpload {
  path: string;
  bytes: number;
  /** Removes the temporary file; safe to call more than once. */
  discard(): Promise<void>;
}

/**
 * Streams uploads into temporary files under one directory, counting bytes as they pass: nothing
 * is held in memory, and reading stops at the first byte over the limit. Whatever goes wrong
 * (too large, client gone, disk error), the temporary file is removed.
 */
export class UploadStaging {
  private readonly dir: string;
  private ready?: Promise<unknown>;

  constructor(
    dir: string,
    private readonly maxBytes: number,
  ) {
    this.dir = resolve(dir);
  }

  /** `source` may be a function that opens the stream: graphql-upload throws from there when the file was already too large. */
  async stage(source: Readable | (() => Readable)): Promise<StagedUpload> {
    let stream: Readable;
    try {
      stream = typeof source === 'function' ? source() : source;
    } catch (error) {
      throw isTooLarge(error) ? tooLarge(this.maxBytes) : error;
    }
    this.ready ??= mkdir(this.dir, { recursive: true });
    await this.ready;
    const path = join(this.dir, `upload-${randomBytes(12).toString('hex')}`);
    const discard = () => rm(path, { force: true });
    let bytes = 0;
    const limit = this.maxBytes;
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        bytes += chunk.length;
        if (bytes > limit) callback(tooLarge(limit));
        else callback(null, chunk);
      },
    });
    try {
      await pipeline(stream, counter, createWriteStream(path, { flags: 'wx' }));
    } catch (error) {
      await discard();
      throw isTooLarge(error) ? tooLarge(limit) : error;
    }
    return { path, bytes, discard };
  }
}

function tooLarge(limit: number): AppError {
  return new AppError(ErrorCode.PAYLOAD_TOO_LARGE, `The avatar is larger than ${limit} bytes`);
}

/** Ours, or graphql-upload's PayloadTooLargeError (an http-errors 413). */
function isTooLarge(error: unknown): boolean {
  if (error instanceof AppError) return error.code === ErrorCode.PAYLOAD_TOO_LARGE;
  const { status, statusCode } = (error ?? {}) as { status?: unknown; statusCode?: unknown };
  return status === 413 || statusCode === 413;
}
