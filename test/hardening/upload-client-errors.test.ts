// API.md 8.0: a malformed upload is the client's mistake: 400 VALIDATION_FAILED (413 for a field over
// its size), never INTERNAL nor an error logged, nothing staged. graphql-upload's own refusals and
// busboy's, over GraphQL; and a request gone while the service was authenticating it is let go at
// once, on both transports, rather than waited for forever.
import { describe, expect, it } from '@jest/globals';
import express, { type ErrorRequestHandler } from 'express';
import graphqlUploadExpress from 'graphql-upload/graphqlUploadExpress.mjs';
import { once } from 'node:events';
import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { guardedUploads } from '../../src/graphql/http.js';
import type { Services } from '../../src/services.js';
import { readSingleFile } from '../../src/shared/http/multipart.js';
import { expectGqlError, expectNothingStored, multipart, RawUpload, resetAvatars, send, solid, UPLOAD_MUTATION, type Multipart, type Part } from '../avatar/support.js';
import { signInWithCode } from '../helpers/factories.js';
import { useTestServer } from '../helpers/server.js';
import { within } from '../operability/support.js';

const OPERATIONS = JSON.stringify({ query: UPLOAD_MUTATION, variables: { file: null } });
const MAP = JSON.stringify({ '0': ['variables.file'] });
const field = (name: string, data: string): Part => ({ name, data });
const file = (name: string, data: Buffer): Part => ({ name, filename: 'a.png', contentType: 'image/png', data });

describe('GraphQL multipart requests the client got wrong', () => {
  const t = useTestServer({ AVATAR_MAX_BYTES: '65536' }, { captureLogs: true });

  it('answers each with 400 VALIDATION_FAILED (a field too large with 413), logs no error and stages nothing', async () => {
    await resetAvatars(t);
    const { accessToken } = await signInWithCode(t);
    const png = await solid(32, 32, 'png');
    const ops = field('operations', OPERATIONS);
    const map = field('map', MAP);
    const form = (...parts: Part[]) => multipart(parts);
    const whole = form(ops, map, file('0', png));
    const cases: { name: string; request: Multipart; status?: number }[] = [
      { name: 'cut off in the file', request: { ...whole, body: whole.body.subarray(0, whole.body.length - 60) } },
      { name: 'the mapped file not sent, another one instead', request: form(ops, map, file('1', png)) },
      { name: 'the mapped file not sent, no file at all', request: form(ops, map) },
      { name: 'operations not JSON', request: form(field('operations', '{"query":'), map, file('0', png)) },
      { name: 'operations not an object', request: form(field('operations', '"mutation"'), map, file('0', png)) },
      { name: 'map not JSON', request: form(ops, field('map', '{"0":'), file('0', png)) },
      { name: 'map an array', request: form(ops, field('map', '[]'), file('0', png)) },
      { name: 'a map entry not an array', request: form(ops, field('map', '{"0":"variables.file"}'), file('0', png)) },
      { name: 'a map path into the prototype', request: form(ops, field('map', '{"0":["__proto__.polluted"]}'), file('0', png)) },
      { name: 'map before operations', request: form(map, ops, file('0', png)) },
      { name: 'no map', request: form(ops, file('0', png)) },
      { name: 'no operations', request: form(map, file('0', png)) },
      { name: 'an empty form', request: form() },
      { name: 'a string where the file goes', request: form(field('operations', OPERATIONS.replace('null', '"a.png"')), field('map', '{}')) },
      { name: 'no boundary', request: { ...whole, contentType: 'multipart/form-data' } },
      { name: 'an empty boundary', request: { ...whole, contentType: 'multipart/form-data; boundary=""' } },
      { name: 'a malformed part header', request: { body: Buffer.from('--b\r\nnot a header\r\n\r\nx\r\n--b--\r\n'), contentType: 'multipart/form-data; boundary=b' } },
      { name: 'operations over 100 KiB', request: form(field('operations', ' '.repeat(200_000)), map), status: 413 },
    ];
    const answers: { name: string; status: number | string; code?: string }[] = [];
    for (const { name, request, status = 400 } of cases) {
      const headers = { 'content-type': request.contentType, 'apollo-require-preflight': 'true', authorization: `Bearer ${accessToken}` };
      const res = await within(send(`${t.url}/graphql`, 'POST', headers, request.body), 5_000);
      if (res === 'timeout') {
        answers.push({ name, status: 'no answer in 5 s' });
        continue;
      }
      answers.push({ name, status: res.status, code: res.body?.errors?.[0]?.extensions?.code });
      expectGqlError(res, res.status, res.body?.errors?.[0]?.extensions?.code);
    }
    expect(answers).toEqual(cases.map(({ name, status = 400 }) => ({ name, status, code: status === 413 ? 'PAYLOAD_TOO_LARGE' : 'VALIDATION_FAILED' })));
    expect(t.logs().split('\n').filter((line) => /"level":(50|60)\b/.test(line))).toEqual([]);
    await expectNothingStored(t);
  });
});

function withResolvers(): { promise: Promise<unknown>; resolve: (value: unknown) => void } {
  let resolve!: (value: unknown) => void;
  const promise = new Promise<unknown>((settle) => (resolve = settle));
  return { promise, resolve };
}

/** Resolves when the request closes (events.once would reject on its 'error'). */
const closed = (req: IncomingMessage) => new Promise<void>((resolve) => req.once('close', () => resolve()));

/** A local app whose handler waits until the client is gone before reading the upload, as the service does while it authenticates. */
async function goneWhileAuthenticating(app: express.Express, path: string, headers: Record<string, string>): Promise<void> {
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const raw = await RawUpload.open({ url }, path, { 'content-type': 'multipart/form-data; boundary=b', ...headers }, 1_000);
    await raw.write(Buffer.from('--b\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n\r\nabc'));
    raw.reset();
  } finally {
    server.close();
  }
}

describe('an upload whose client left while it was being authenticated', () => {
  it('REST: the multipart reader fails at once with VALIDATION_FAILED', async () => {
    const outcome = withResolvers();
    const app = express().post('/', async (req, res) => {
      await closed(req);
      const read = readSingleFile(req, { field: 'file', maxBytes: 1_000 }, (stream) => stream.toArray(), async () => undefined);
      outcome.resolve(await read.then(() => 'read', (error: unknown) => error));
      res.end();
    });
    await goneWhileAuthenticating(app, '/', {});
    expect(await within(outcome.promise, 2_000)).toMatchObject({ code: 'VALIDATION_FAILED' });
  });

  it('GraphQL: the upload guard fails at once with VALIDATION_FAILED', async () => {
    const outcome = withResolvers();
    let gone: Promise<void> = Promise.resolve();
    const authenticator = { authenticate: () => gone.then(() => ({ userId: 'u' })) };
    const failed: ErrorRequestHandler = (error, _req, res, _next) => {
      outcome.resolve(error);
      res.end();
    };
    const app = express()
      .use((req, _res, next) => {
        gone = closed(req);
        next();
      })
      .post('/', guardedUploads({ authenticator } as unknown as Services, graphqlUploadExpress()), (_req, res) => {
        outcome.resolve('read');
        res.end();
      })
      .use(failed);
    await goneWhileAuthenticating(app, '/', { 'apollo-require-preflight': 'true' });
    expect(await within(outcome.promise, 2_000)).toMatchObject({ code: 'VALIDATION_FAILED' });
  });
});
