import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { AppError, ErrorCode, msg } from '../../shared/errors/app-error.js';

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

  constructor(
    dir: string,
    private readonly maxBytes: number,
  ) {
    this.dir = resolve(dir);
    // Made here, once, rather than on first use: awaiting it there would leave the first upload's
    // stream without an error listener meanwhile, and a client hanging up then would end the process.
    mkdirSync(this.dir, { recursive: true });
  }

  /**
   * Stages an upload the transport already holds. Nothing is awaited before the pipeline listens
   * to `source`: a stream that errors (cut off, client gone) always has a listener.
   */
  stage(source: Readable): Promise<StagedUpload> {
    const path = join(this.dir, `upload-${randomBytes(12).toString('hex')}`);
    let bytes = 0;
    const limit = this.maxBytes;
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        bytes += chunk.length;
        if (bytes > limit) callback(tooLarge(limit));
        else callback(null, chunk);
      },
    });
    const discard = () => rm(path, { force: true });
    return pipeline(source, counter, createWriteStream(path, { flags: 'wx' })).then(
      () => ({ path, bytes, discard }),
      async (error: unknown) => {
        await discard();
        throw isSystemError(error) ? error : this.fromSource(error);
      },
    );
  }

  /**
   * Stages an upload that must first be opened: graphql-upload's file promise rejects, and its
   * `createReadStream` throws, when the request was cut off or the file is already too large. The
   * stream is opened and listened to in one run of the microtask queue, where no event comes between.
   */
  async open(source: () => Readable | Promise<Readable>): Promise<StagedUpload> {
    let stream: Readable;
    try {
      stream = await source();
    } catch (error) {
      throw this.fromSource(error);
    }
    return this.stage(stream);
  }

  /** Anything the upload's own stream reports is the client's doing: too large, or cut off. */
  private fromSource(error: unknown): AppError {
    if (isTooLarge(error)) return tooLarge(this.maxBytes);
    if (error instanceof AppError) return error;
    return new AppError(ErrorCode.VALIDATION_FAILED, msg('upload.malformed'), {
      fields: { file: msg('upload.malformed.field') },
      cause: error,
    });
  }
}

function tooLarge(limit: number): AppError {
  return new AppError(ErrorCode.PAYLOAD_TOO_LARGE, msg('avatar.tooLarge', { max: String(limit) }));
}

/**
 * A failed system call: the disk (no space, no directory), ours to report. The streams pass one
 * error to all of them, so which stream emitted it does not tell whose it is; its kind does.
 */
function isSystemError(error: unknown): boolean {
  return typeof (error as NodeJS.ErrnoException | null)?.syscall === 'string';
}

/** Ours, or graphql-upload's PayloadTooLargeError (an http-errors 413). */
function isTooLarge(error: unknown): boolean {
  if (error instanceof AppError) return error.code === ErrorCode.PAYLOAD_TOO_LARGE;
  const { status, statusCode } = (error ?? {}) as { status?: unknown; statusCode?: unknown };
  return status === 413 || statusCode === 413;
}
