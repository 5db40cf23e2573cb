// Transport and data-directory helpers of the avatar suite (not a test file); fixtures re-exported.
import { expect } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { readdir, rm } from 'node:fs/promises';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import sharp, { type Metadata } from 'sharp';
import type { TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';

export * from './fixtures.js';

// ---------------------------------------------------------------------------------------------
// Multipart bodies and raw HTTP
// ---------------------------------------------------------------------------------------------

export interface Part {
  name: string;
  data: Buffer | string;
  /** A file part when set (even to an empty string). */
  filename?: string;
  contentType?: string;
}

export interface Multipart {
  body: Buffer;
  contentType: string;
}

/** Encodes parts as multipart/form-data, byte for byte as written (no escaping of filenames). */
export function multipart(parts: Part[]): Multipart {
  const boundary = `----avatar-test-${randomBytes(8).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"`;
    if (part.filename !== undefined) head += `; filename="${part.filename}"`;
    head += '\r\n';
    if (part.contentType) head += `Content-Type: ${part.contentType}\r\n`;
    chunks.push(Buffer.from(`${head}\r\n`), Buffer.from(part.data), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: any;
  raw: Buffer;
}

/**
 * One request over node:http. The response is taken even when the server answers early and
 * closes the connection while the body is still being sent (as it may for refused uploads).
 */
export function send(url: string, method: string, headers: Record<string, string>, body?: Buffer): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers: { ...headers, connection: 'close' } });
    let answered = false;
    req.on('response', (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const raw = Buffer.concat(chunks);
        const text = raw.toString('utf8');
        const json = /json/.test(res.headers['content-type'] ?? '') && text ? JSON.parse(text) : text;
        resolve({ status: res.statusCode!, headers: res.headers, body: json, raw });
      });
    });
    req.on('error', (error) => {
      if (!answered) reject(error);
    });
    req.end(body);
  });
}

/**
 * A request written by hand over a raw socket: it announces `contentLength` body bytes, and the
 * test decides how many it sends, when it waits for an answer and when it hangs up.
 */
export class RawUpload {
  private received = '';
  private closed = false;
  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.received += chunk.toString('latin1');
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      this.closed = true;
    });
  }

  static open(t: Pick<TestServer, 'url'>, path: string, headers: Record<string, string>, contentLength: number): Promise<RawUpload> {
    const { hostname, port, host } = new URL(t.url);
    return new Promise((resolve, reject) => {
      const socket = connect(Number(port), hostname, () => {
        let head = `POST ${path} HTTP/1.1\r\nHost: ${host}\r\nContent-Length: ${contentLength}\r\n`;
        for (const [name, value] of Object.entries(headers)) head += `${name}: ${value}\r\n`;
        socket.write(`${head}\r\n`);
        resolve(new RawUpload(socket));
      });
      socket.once('error', reject);
    });
  }

  /** Writes body bytes; resolves once they are handed to the kernel (or the server hung up). */
  write(bytes: Buffer): Promise<void> {
    return new Promise((resolve) => {
      if (this.closed) return resolve();
      this.socket.write(bytes, () => resolve());
    });
  }

  /** The status line and headers of the answer, or undefined when none came within `ms`. */
  async response(ms: number): Promise<string | undefined> {
    await waitFor(() => this.received.includes('\r\n\r\n') || this.closed, ms, 20);
    const end = this.received.indexOf('\r\n\r\n');
    return end >= 0 ? this.received.slice(0, end) : undefined;
  }

  /** Hangs up abruptly, as a client that goes away mid-upload. */
  destroy(): void {
    this.socket.destroy();
  }

  /** Resets the connection (TCP RST rather than FIN), as a client that crashes or loses its network. */
  reset(): void {
    this.socket.resetAndDestroy();
  }
}

export const AVATAR_URL = /^\/api\/v1\/avatars\/[0-9a-f]{32}\.webp$/;

/** POST /api/v1/users/me/avatar with one file in `file` (or the given parts). */
export function restUpload(
  t: TestServer,
  token: string | undefined,
  file: Buffer | Part[],
  { filename = 'avatar.img', contentType = 'application/octet-stream' } = {},
): Promise<RawResponse> {
  const parts = Array.isArray(file) ? file : [{ name: 'file', filename, contentType, data: file }];
  const { body, contentType: type } = multipart(parts);
  const headers: Record<string, string> = { 'content-type': type };
  if (token) headers.authorization = `Bearer ${token}`;
  return send(`${t.url}/api/v1/users/me/avatar`, 'POST', headers, body);
}

export const UPLOAD_MUTATION = 'mutation UploadAvatar($file: Upload!) { uploadAvatar(file: $file) { id avatarUrl } }';

/** The GraphQL multipart request of the spec: operations, map, then the file parts. */
export function gqlUploadBody(files: Part[], map: Record<string, string[]> = { '0': ['variables.file'] }): Multipart {
  return multipart([
    { name: 'operations', data: JSON.stringify({ query: UPLOAD_MUTATION, variables: { file: null } }) },
    { name: 'map', data: JSON.stringify(map) },
    ...files,
  ]);
}

/** uploadAvatar over GraphQL multipart, with the preflight header unless told otherwise. */
export function gqlUpload(
  t: TestServer,
  token: string | undefined,
  file: Buffer | Part[],
  { preflight = true, filename = 'avatar.img', contentType = 'application/octet-stream', map = undefined as Record<string, string[]> | undefined } = {},
): Promise<RawResponse> {
  const files = Array.isArray(file) ? file : [{ name: '0', filename, contentType, data: file }];
  const { body, contentType: type } = gqlUploadBody(files, map);
  const headers: Record<string, string> = { 'content-type': type };
  if (preflight) headers['apollo-require-preflight'] = 'true';
  if (token) headers.authorization = `Bearer ${token}`;
  return send(`${t.url}/graphql`, 'POST', headers, body);
}

/** The codes of a GraphQL response's errors. */
function gqlCodes(res: RawResponse): (string | undefined)[] {
  return (res.body?.errors ?? []).map((e: any) => e.extensions?.code);
}

/** Asserts an RFC 9457 problem of this status and code, without internals. */
export function expectUploadProblem(res: RawResponse, status: number, code: string): void {
  expect({ status: res.status, code: res.body?.code }).toEqual({ status, code });
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(res.body).toMatchObject({ type: 'about:blank', status, code });
  expect(typeof res.body.detail).toBe('string');
  expect(res.raw.toString()).not.toMatch(/\\n\s+at |node_modules|\.[jt]s:\d+|\/tmp\/|upload-[0-9a-f]{24}/);
}

/** Asserts a GraphQL answer with exactly one error of `code`, no data, and this HTTP status. */
export function expectGqlError(res: RawResponse, status: number, code: string): void {
  expect({ status: res.status, codes: gqlCodes(res) }).toEqual({ status, codes: [code] });
  expect(res.body.data ?? null).toBeNull();
  expect(res.raw.toString()).not.toMatch(/\\n\s+at |node_modules|\.[jt]s:\d+|\/tmp\/|upload-[0-9a-f]{24}|stacktrace/);
}

// ---------------------------------------------------------------------------------------------
// The server's data directory
// ---------------------------------------------------------------------------------------------

async function list(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

/** Files being staged (DATA_DIR/tmp). */
export const tmpFiles = (t: Pick<TestServer, 'dataDir'>) => list(join(t.dataDir, 'tmp'));
/** Stored avatars (DATA_DIR/avatars). */
export const avatarFiles = (t: TestServer) => list(join(t.dataDir, 'avatars'));

/**
 * t.reset() empties the tables but not the disk: this empties avatars/ and tmp/ (the directories
 * stay, as the service created them once) so that each test sees only its own files.
 */
export async function resetAvatars(t: TestServer): Promise<void> {
  for (const dir of ['avatars', 'tmp']) {
    for (const name of await list(join(t.dataDir, dir))) await rm(join(t.dataDir, dir, name), { force: true });
  }
}

/** Waits up to `ms` for DATA_DIR/tmp to be empty or missing; returns what is left. */
export async function settledTmpFiles(t: Pick<TestServer, 'dataDir'>, ms = 2_000): Promise<string[]> {
  let files: string[] = [];
  await waitFor(async () => (files = await tmpFiles(t)).length === 0, ms, 50);
  return files;
}

/** Asserts that nothing was staged or stored: both directories empty (or never created). */
export async function expectNothingStored(t: TestServer): Promise<void> {
  expect({ tmp: await settledTmpFiles(t), avatars: await avatarFiles(t) }).toEqual({ tmp: [], avatars: [] });
}

/** Fetches a served avatar and checks it is a square WebP of at most 512x512 without metadata. */
export async function fetchAvatar(t: TestServer, url: string): Promise<{ bytes: Buffer; meta: Metadata }> {
  const res = await fetch(`${t.url}${url}`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('image/webp');
  const bytes = Buffer.from(await res.arrayBuffer());
  const meta = await sharp(bytes).metadata();
  expect(meta.format).toBe('webp');
  expect(meta.width).toBe(meta.height);
  expect(meta.width).toBeLessThanOrEqual(512);
  expect({ exif: meta.exif, xmp: meta.xmp, icc: meta.icc }).toEqual({ exif: undefined, xmp: undefined, icc: undefined });
  return { bytes, meta };
}

/** GET /api/v1/users/me over REST. */
export async function restMe(t: TestServer, token: string): Promise<any> {
  const res = await t.http.get('/api/v1/users/me', { token });
  expect(res.status).toBe(200);
  return res.body;
}
