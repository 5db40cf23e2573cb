// The requests of test/hardening/parser-errors.test.ts (not a test file): what each transport
// answers a request its parsers refuse, read back as status, code and message; requests whose client
// hangs up half-way; and the libraries' own errors for the failures no request can provoke here.
import { expect } from '@jest/globals';
import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import { send, type RawResponse } from '../avatar/support.js';

/** What a refused request was told: the status, the code and the message (a problem's `detail`, a GraphQL error's `message`). */
export interface Told {
  status: number;
  code?: string;
  message?: string;
}

export type Transport = 'REST' | 'GraphQL';

/** Reads `res` as `transport` lays out its errors (a problem document; /graphql's error shape). */
export function toldBy(transport: Transport, res: RawResponse): Told {
  const type = res.headers['content-type'] ?? '';
  if (transport === 'REST') {
    expect(type).toMatch(/^application\/problem\+json/);
    return { status: res.status, code: res.body?.code, message: res.body?.detail };
  }
  expect(type).toMatch(/^application\/json/);
  const error = res.body?.errors?.[0];
  return { status: res.status, code: error?.extensions?.code, message: error?.message };
}

/** A POST of `body` as `contentType`, with extra headers. */
export function post(url: string, contentType: string, body: Buffer | string, headers: Record<string, string> = {}): Promise<RawResponse> {
  return send(url, 'POST', { 'content-type': contentType, ...headers }, Buffer.from(body));
}

/** A GET. */
export function get(url: string, headers: Record<string, string> = {}): Promise<RawResponse> {
  return send(url, 'GET', headers);
}

/** Bytes that are not what the Content-Encoding says they are: gzip cut off half-way. */
export const brokenGzip = (body: string) => gzipSync(Buffer.from(body)).subarray(0, 12);

/** A form of `count` fields. */
export const formOf = (count: number) => Array.from({ length: count }, (_, i) => `f${i}=1`).join('&');

/**
 * A request whose client sends half the body it announced and then closes its side of the
 * connection: the service reads an aborted body. Resolves when the service has closed the connection.
 */
export async function cutOff(url: string, path: string, headers: Record<string, string>, body: Buffer): Promise<void> {
  const { hostname, port, host } = new URL(url);
  const socket = connect(Number(port), hostname);
  await once(socket, 'connect');
  let head = `POST ${path} HTTP/1.1\r\nHost: ${host}\r\nContent-Length: ${body.length}\r\n`;
  for (const [name, value] of Object.entries(headers)) head += `${name}: ${value}\r\n`;
  socket.on('error', () => undefined);
  socket.resume();
  socket.write(`${head}\r\n`);
  socket.write(body.subarray(0, Math.floor(body.length / 2)));
  await new Promise((resolve) => setTimeout(resolve, 50));
  socket.resetAndDestroy();
  await once(socket, 'close');
}

/**
 * The error `handlers` pass on for the request `sendTo` sends to a local app that runs them: the
 * libraries' own error objects, for the failures whose answer no client is left to read, or that no
 * request can provoke in this service (a configuration it does not use, a request broken as nothing
 * in it breaks one). Undefined when none came within 2 s.
 */
export async function errorOf(handlers: RequestHandler[], sendTo: (url: string) => Promise<unknown>): Promise<unknown> {
  let caught!: (error: unknown) => void;
  const failed = new Promise<unknown>((resolve) => (caught = resolve));
  const keep: ErrorRequestHandler = (error, _req, res, _next) => {
    caught(error);
    res.status(400).end();
  };
  const app = express().post('/', ...handlers, (_req, res) => res.end()).use(keep);
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    await sendTo(`http://127.0.0.1:${(server.address() as AddressInfo).port}`).catch(() => undefined);
    let timer: NodeJS.Timeout | undefined;
    return await Promise.race([failed, new Promise((resolve) => (timer = setTimeout(resolve, 2_000)))]).finally(() => clearTimeout(timer));
  } finally {
    server.close();
    server.closeAllConnections();
  }
}
