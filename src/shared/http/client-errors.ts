import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { Response } from 'express';
import { AppError, ErrorCode, msg } from '../errors/app-error.js';
import type { Locale } from '../i18n/locale.js';
import { withRequestId, type Logger } from '../logger.js';
import type { HttpMetrics } from '../metrics/http-metrics.js';
import { answeredAsTimedOut, problemDocument, type ErrorDocument } from './problem.js';
import { receivingBodyOf, writingTo } from './request-context.js';
import { apiHeaders } from './security.js';

export interface ClientErrorOptions {
  logger: Logger;
  metrics?: HttpMetrics;
  /** The server's headers timeout: how long a request that timed out before its headers had been waiting. */
  headersTimeoutMs: number;
  /**
   * The answer of a request whose body did not arrive in time, laid out as its transport lays out
   * its errors (and, for the request metric, marked with the route it was for).
   */
  timedOut(res: Response, error: AppError): ErrorDocument;
  /** The locale of an answer to a request whose headers (Accept-Language among them) never arrived. */
  defaultLocale: Locale;
}

/** What Node answers to a request it cannot parse, by its error code (lib/_http_server.js); 400 for the others. */
const NODE_STATUS: Record<string, number> = { HPE_HEADER_OVERFLOW: 431, HPE_CHUNK_EXTENSIONS_OVERFLOW: 413 };

/**
 * The HTTP server's 'clientError' listener. With one, Node leaves every client error to it (without,
 * it writes a bare status line and closes the connection).
 *
 * A request timeout (`ERR_HTTP_REQUEST_TIMEOUT`: the headers, or the whole request, did not arrive
 * within the server's timeouts) is answered 408 REQUEST_TIMEOUT with `Connection: close`, when the
 * connection can still take an answer and nothing of one was written: through the request's own
 * response when its headers arrived (its transport's shape; the access log and the request metric
 * see it as any other answer), else as a problem document written on the connection, counted without
 * a method or a route. A request answered before its body stalled gets nothing more: the connection
 * is closed. Every other client error gets Node's own answer.
 */
export function clientErrorListener({ logger, metrics, headersTimeoutMs, timedOut, defaultLocale }: ClientErrorOptions): (error: NodeJS.ErrnoException, socket: Socket) => void {
  return (error, socket) => {
    if (error.code !== 'ERR_HTTP_REQUEST_TIMEOUT') return nodeAnswer(error, socket);
    const res = receivingBodyOf(socket);
    const timeout = new AppError(ErrorCode.REQUEST_TIMEOUT, msg(res ? 'http.bodyTimeout' : 'http.headersTimeout'));
    if (res && socket.writable && !res.headersSent) {
      answeredAsTimedOut(res);
      endWith(res, timedOut(res, timeout));
      // Node forgets a request once its response has finished, and would not abort it with the
      // connection: what reads its body (the JSON parser, an upload being staged) would wait for the
      // rest for ever. It hears of the end when the connection closes, after the answer went out.
      socket.once('close', () => res.req.destroy());
      return;
    }
    if (!res && socket.writable && !writingTo(socket)) {
      const id = randomUUID();
      socket.end(rawAnswer(problemDocument(timeout, id, defaultLocale), id), () => socket.destroy());
      metrics?.timedOutBeforeHeaders(headersTimeoutMs / 1000);
      withRequestId(id, () => logger.warn({ res: { status: 408 } }, 'request timed out: its headers did not arrive in time'));
      return;
    }
    socket.destroy();
    res?.req.destroy();
  };
}

/**
 * Answers through the request's response and closes the connection after it. Written with `end`
 * rather than `send`: graphql-upload holds a `send` back until the body has ended, which it never will.
 */
function endWith(res: Response, document: ErrorDocument): void {
  res.statusCode = document.status;
  for (const [name, value] of document.headers) {
    if (name === 'Vary') res.vary(value);
    else res.setHeader(name, value);
  }
  res.setHeader('Content-Type', `${document.contentType}; charset=utf-8`);
  res.setHeader('Content-Length', Buffer.byteLength(document.body));
  res.setHeader('Connection', 'close');
  res.end(document.body);
}

/** A whole HTTP/1.1 response for a connection without a request: the API's headers, the request id, then `document`. */
function rawAnswer(document: ErrorDocument, requestId: string): string {
  const headers: [string, string | number][] = [
    ['Date', new Date().toUTCString()],
    ...apiHeaders(),
    ['X-Request-Id', requestId],
    ...document.headers,
    ['Content-Type', `${document.contentType}; charset=utf-8`],
    ['Content-Length', Buffer.byteLength(document.body)],
    ['Connection', 'close'],
  ];
  const head = [`HTTP/1.1 ${document.status} ${STATUS_CODES[document.status]}`, ...headers.map(([name, value]) => `${name}: ${value}`)];
  return `${head.join('\r\n')}\r\n\r\n${document.body}`;
}

/** What Node does without a listener (socketOnError): a bare status line when nothing of an answer was written, then the connection is closed. */
function nodeAnswer(error: NodeJS.ErrnoException, socket: Socket): void {
  if (socket.writable && !writingTo(socket)) {
    const status = NODE_STATUS[error.code ?? ''] ?? 400;
    socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\n\r\n`, 'ascii');
  }
  socket.destroy(error);
}
