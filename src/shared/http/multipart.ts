import busboy from 'busboy';
import type { Request } from 'express';
import type { Readable } from 'node:stream';
import { AppError, ErrorCode, msg, type Message } from '../errors/app-error.js';
import { parserError } from './parser-errors.js';

export interface SingleFileOptions {
  field: string;
  /** Busboy stops passing bytes past this; the consumer sees one byte more and refuses. */
  maxBytes: number;
}

/**
 * Reads a multipart/form-data request that must carry exactly one file in `field`, handing the
 * file's stream to `consume` as it arrives (nothing is buffered here). Throws VALIDATION_FAILED for
 * anything but one file in the right field; whatever `consume` produced is passed to `discard` when
 * the request turns out to be invalid after it.
 */
export async function readSingleFile<T>(
  req: Request,
  { field, maxBytes }: SingleFileOptions,
  consume: (file: Readable) => Promise<T>,
  discard: (result: T) => Promise<void>,
): Promise<T> {
  if (!req.is('multipart/form-data')) {
    throw invalidFile(msg('upload.sendOneFile', { field }));
  }
  // Gone while the request waited (for authentication): its 'close' has passed, and nothing would
  // ever end the parser.
  if (req.destroyed && !req.complete) throw parserError('multipart.aborted');
  let parser: busboy.Busboy;
  try {
    parser = busboy({ headers: req.headers, limits: { files: 1, fileSize: maxBytes + 1, fields: 20, parts: 25 } });
  } catch {
    throw parserError('multipart.boundary.missing');
  }
  return new Promise<T>((resolve, reject) => {
    let consumed: Promise<T> | undefined;
    let problem: unknown;
    const fail = (error: unknown) => {
      problem ??= error;
    };
    parser.on('file', (name, stream) => {
      // Busboy errors the file stream when the body is cut off or the client goes, and an unheard
      // 'error' would end the process: heard here at once, before anything is awaited. The answer
      // comes from the parser's error, the abort or the consumer's own failure.
      stream.on('error', () => undefined);
      if (name !== field) {
        fail(invalidFile(msg('upload.unexpectedField', { name, field })));
        stream.resume();
        return;
      }
      consumed = consume(stream);
      // A refused file (too large, unreadable) is answered at once: the consumer destroyed the
      // stream, so busboy would never finish the form, and the rest of the body is not wanted.
      consumed.catch((error: unknown) => {
        fail(error);
        req.unpipe(parser);
        void settle();
      });
    });
    parser.on('filesLimit', () => fail(parserError('multipart.files.too.many')));
    // Fields are not read here: past 20 of them, or 25 parts, the body is a flood.
    parser.on('fieldsLimit', () => fail(parserError('multipart.parts.too.many')));
    parser.on('partsLimit', () => fail(parserError('multipart.parts.too.many')));
    parser.on('error', (error) => {
      fail(parserError('multipart.malformed'));
      settle(error);
    });
    parser.on('close', () => settle());
    // The client went away: without an end the parser would wait forever, and so would the
    // consumer's stream; destroying the parser errors the file stream, so staging cleans up.
    req.once('close', () => {
      if (req.complete) return;
      fail(parserError('multipart.aborted'));
      parser.destroy(new Error('The upload was aborted'));
    });

    let settled = false;
    async function settle(_error?: unknown) {
      if (settled) return;
      settled = true;
      const result = await consumed?.catch((error: unknown) => {
        fail(error);
        return undefined;
      });
      if (!consumed) fail(invalidFile(msg('upload.noFile', { field })));
      if (problem) {
        if (result !== undefined) await discard(result).catch(() => undefined);
        reject(problem);
      } else {
        resolve(result as T);
      }
    }
    req.pipe(parser);
  });
}

/** A malformed upload (not exactly one file where one is expected), on either transport. */
function invalidFile(message: Message): AppError {
  return new AppError(ErrorCode.VALIDATION_FAILED, message, { fields: { file: message } });
}
