import { GraphQLScalarType } from 'graphql';
import GraphQLUpload from 'graphql-upload/GraphQLUpload.mjs';
import type { FileUpload } from 'graphql-upload/processRequest.mjs';
import type { Readable } from 'node:stream';
import { AppError, ErrorCode } from '../shared/errors/app-error.js';

/** A file of a GraphQL multipart request, opened when the resolver is ready to read it. */
export interface PendingUpload {
  open(): Promise<Readable>;
}

/**
 * graphql-upload's Upload scalar, whose value is a promise of the file: type-graphql awaits promise
 * arguments before the resolver runs, so a request cut off meanwhile would fail there, outside the
 * resolver, as an unknown error. Wrapped, the promise is awaited by whoever opens the file, which
 * knows its failures for the client's.
 */
export const Upload = new GraphQLScalarType<unknown>({
  ...GraphQLUpload.toConfig(),
  parseValue(value) {
    const file = GraphQLUpload.parseValue(value) as Promise<FileUpload>;
    return { open: () => file.then((upload) => upload.createReadStream()) };
  },
});

/**
 * A resolver's VALIDATION_FAILED from an upload (cut off, file missing) is a malformed request: it
 * answers 400, as when graphql-upload finds it before Apollo runs, not the 200 of an operation's
 * errors. Apollo takes the status from `extensions.http`, which graphql-js copies from the error.
 */
export function malformedRequest(error: unknown): never {
  if (error instanceof AppError && error.code === ErrorCode.VALIDATION_FAILED) {
    Object.assign(error, { extensions: { http: { status: 400 } } });
  }
  throw error;
}
