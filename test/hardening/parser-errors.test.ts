// API.md 10.0: every error a body, form, query-string or multipart parser can raise is a 4xx in the
// transport's error shape (too many fields or parameters: 413 PAYLOAD_TOO_LARGE), never INTERNAL nor
// an error-level log line. Each kind of src/shared/http/parser-errors.ts is provoked here on the
// routes whose parser raises it, and the last test fails when a kind of the table was not.
import { beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import express from 'express';
import graphqlUploadExpress from 'graphql-upload/graphqlUploadExpress.mjs';
import { describe as describeCode } from '../../src/shared/errors/catalogue.js';
import { readSingleFile } from '../../src/shared/http/multipart.js';
import { bodyErrorKind, PARSER_FAILURES, uploadErrorKind, type ParserFailureKind } from '../../src/shared/http/parser-errors.js';
import { toHttpAppError } from '../../src/shared/http/problem.js';
import { QUERY_PARAMETER_LIMIT } from '../../src/shared/http/query-string.js';
import { multipart, send, solid, UPLOAD_MUTATION, type Part } from '../avatar/support.js';
import { signInWithCode } from '../helpers/factories.js';
import { useTestServer, type TestServer } from '../helpers/server.js';
import { brokenGzip, cutOff, errorOf, formOf, get, post, toldBy, type Transport } from './parser-requests.js';
import type { RawResponse } from '../avatar/support.js';

const lean = useTestServer({}, { captureLogs: true });
// POST /graphql through Express's router and body-parser, where `lean` reads plain JSON itself.
const plain = useTestServer({}, { captureLogs: true, fastPaths: false });
// The OpenID callback's form as an attacker found it: in production, with no sign-in.
const production = useTestServer({ NODE_ENV: 'production' }, { captureLogs: true });

const SEND = '/api/v1/auth/send-code';
const ME = '/api/v1/users/me';
const CALLBACK = '/api/v1/auth/oidc/acme/callback';
const JSON_TYPE = 'application/json';
const FORM = 'application/x-www-form-urlencoded';
const BIG_JSON = JSON.stringify({ phone: '+8613800138000', padding: 'x'.repeat(200 * 1024) });
const QUERY = JSON.stringify({ query: '{ config { registrationEnabled } }' });
const OPERATIONS = JSON.stringify({ query: UPLOAD_MUTATION, variables: { file: null } });
const field = (name: string, data: string): Part => ({ name, data });
const file = (name: string, data: Buffer): Part => ({ name, filename: 'a.png', contentType: 'image/png', data });

/** How each kind was met: answered over HTTP, provoked over HTTP with no client left to answer, raised by the library in a local app. */
const met = new Map<ParserFailureKind, Set<'answered' | 'unanswered' | 'library'>>();
const meet = (kind: ParserFailureKind, how: 'answered' | 'unanswered' | 'library') => met.set(kind, (met.get(kind) ?? new Set()).add(how));

const errorLines = (t: TestServer) => t.logs().split('\n').filter((line) => /"level":(50|60)\b/.test(line));

let token: string;
let png: Buffer;
beforeAll(async () => {
  png = await solid(8, 8, 'png');
});
beforeEach(async () => {
  token = (await signInWithCode(lean)).accessToken;
});
const bearer = () => ({ authorization: `Bearer ${token}` });
const preflight = () => ({ ...bearer(), 'apollo-require-preflight': 'true' });

interface Case {
  kind: ParserFailureKind;
  name: string;
  transport: Transport;
  request: () => Promise<RawResponse>;
}

/** Sends each case and checks it was answered the kind's status, code and message in its transport's shape. */
async function expectAnswered(cases: Case[]): Promise<void> {
  const seen = [];
  for (const { kind, name, transport, request } of cases) {
    const told = toldBy(transport, await request());
    const { code, message } = PARSER_FAILURES[kind];
    // The parser's own words may follow the kind's message.
    const said = told.message === message || told.message?.startsWith(`${message}: `) ? message : told.message;
    seen.push({ name, kind, ...told, message: said });
    expect(told.status).toBeLessThan(500);
    meet(kind, 'answered');
  }
  expect(seen).toEqual(cases.map(({ kind, name }) => ({ name, kind, status: describeCode(PARSER_FAILURES[kind].code).status, code: PARSER_FAILURES[kind].code, message: PARSER_FAILURES[kind].message })));
  expect([...errorLines(lean), ...errorLines(plain), ...errorLines(production)]).toEqual([]);
}

describe('body-parser and raw-body (JSON on REST and /graphql, the form of the OpenID callback)', () => {
  it('answers each failure of a JSON body on REST, signed in or not, with its 4xx problem', async () => {
    const rest = (kind: ParserFailureKind, name: string, body: Buffer | string, headers: Record<string, string> = {}, type = JSON_TYPE): Case[] => [
      { kind, name: `${SEND}: ${name}`, transport: 'REST', request: () => post(`${lean.url}${SEND}`, type, body, headers) },
      { kind, name: `PATCH ${ME}: ${name}`, transport: 'REST', request: () => send(`${lean.url}${ME}`, 'PATCH', { 'content-type': type, ...bearer(), ...headers }, Buffer.from(body)) },
    ];
    await expectAnswered([
      ...rest('entity.too.large', '200 KiB', BIG_JSON),
      ...rest('entity.parse.failed', 'not JSON', '{"phone":'),
      ...rest('entity.parse.failed', 'not an object', '"+8613800138000"'),
      ...rest('entity.parse.failed', '90,000 arrays never closed', '['.repeat(90_000)),
      ...rest('charset.unsupported', 'in Latin-1', '{}', {}, `${JSON_TYPE}; charset=latin1`),
      ...rest('encoding.unsupported', 'in an unknown Content-Encoding', '{}', { 'content-encoding': 'x-unknown' }),
      ...rest('encoding.malformed', 'gzip cut off', brokenGzip('{"phone":"+8613800138000"}'), { 'content-encoding': 'gzip' }),
      ...rest('encoding.malformed', 'not Brotli', 'not brotli at all', { 'content-encoding': 'br' }),
    ]);
  });

  it('answers a form of more than 20 fields on the OpenID callback with 413, and each other failure of the form with its 4xx', async () => {
    const callback = (kind: ParserFailureKind, name: string, body: Buffer | string, headers: Record<string, string> = {}, type = FORM): Case[] =>
      [lean, production].map((t) => ({ kind, name: `${t === lean ? 'test' : 'production'}: ${name}`, transport: 'REST' as const, request: () => post(`${t.url}${CALLBACK}`, type, body, headers) }));
    await expectAnswered([
      ...callback('parameters.too.many', '21 fields', formOf(21)),
      ...callback('parameters.too.many', '1,500 fields', formOf(1_500)),
      ...callback('parameters.too.many', '10,000 empty fields', '&'.repeat(9_999)),
      ...callback('parameters.too.many', '21 fields of one name', 'state=a&'.repeat(21)),
      ...callback('entity.too.large', 'over 16 KiB', `state=${'x'.repeat(17 * 1024)}`),
      ...callback('entity.too.large', '10,000 fields over 16 KiB', formOf(10_000)),
      ...callback('charset.unsupported', 'in UTF-16', 'state=a', {}, `${FORM}; charset=utf-16`),
      ...callback('encoding.unsupported', 'in an unknown Content-Encoding', 'state=a', { 'content-encoding': 'x-unknown' }),
      ...callback('encoding.malformed', 'gzip cut off', brokenGzip('state=a&code=b'), { 'content-encoding': 'gzip' }),
    ]);
  });

  it('answers each failure of a JSON body on /graphql, on the lean path and through Express, in its error shape', async () => {
    const graphql = (kind: ParserFailureKind, name: string, body: Buffer | string, headers: Record<string, string> = {}, type = JSON_TYPE): Case[] =>
      [lean, plain].map((t) => ({ kind, name: `${t === lean ? 'lean' : 'Express'}: ${name}`, transport: 'GraphQL' as const, request: () => post(`${t.url}/graphql`, type, body, headers) }));
    await expectAnswered([
      ...graphql('entity.parse.failed', 'not JSON', '{"query": '),
      ...graphql('entity.parse.failed', 'a string', JSON.stringify('{ me { id } }')),
      ...graphql('entity.parse.failed', '90,000 arrays never closed', '['.repeat(90_000)),
      ...graphql('entity.too.large', '200 KiB', BIG_JSON),
      ...graphql('charset.unsupported', 'in Latin-1', QUERY, {}, `${JSON_TYPE}; charset=latin1`),
      ...graphql('encoding.unsupported', 'in an unknown Content-Encoding', QUERY, { 'content-encoding': 'x-unknown' }),
      ...graphql('encoding.malformed', 'gzip cut off', brokenGzip(QUERY), { 'content-encoding': 'gzip' }),
    ]);
  });

  it('lets a body cut off by its client go without an error line, on REST, the form and both paths of /graphql', async () => {
    const body = Buffer.from(BIG_JSON.slice(0, 50_000));
    await cutOff(lean.url, SEND, { 'content-type': JSON_TYPE }, body);
    await cutOff(lean.url, CALLBACK, { 'content-type': FORM }, Buffer.from(formOf(10).padEnd(8_000, '&')));
    for (const t of [lean, plain]) await cutOff(t.url, '/graphql', { 'content-type': JSON_TYPE }, body);
    meet('request.aborted', 'unanswered');
    // The service still answers, and wrote no error line for them.
    expect((await get(`${lean.url}/healthz`)).status).toBe(200);
    expect([...errorLines(lean), ...errorLines(plain)]).toEqual([]);
    // What body-parser fails such a request with is the kind above.
    const error = await errorOf([express.json()], (url) => cutOff(url, '/', { 'content-type': JSON_TYPE }, body));
    expect(bodyErrorKind(error)).toBe('request.aborted');
    expect(toHttpAppError(error).code).toBe(PARSER_FAILURES['request.aborted'].code);
    meet('request.aborted', 'library');
  });
});

describe("Express's query-string parser and the router's path decoding", () => {
  it(`answers more than ${QUERY_PARAMETER_LIMIT} query parameters with 413, and a path that does not decode with 400`, async () => {
    const flood = Array.from({ length: QUERY_PARAMETER_LIMIT + 1 }, () => 'returnTo=a').join('&');
    const rest = (kind: ParserFailureKind, path: string, headers: Record<string, string> = {}): Case => ({
      kind,
      name: `GET ${path.slice(0, 60)}`,
      transport: 'REST',
      request: () => get(`${lean.url}${path}`, headers),
    });
    await expectAnswered([
      rest('query.parameters.too.many', `/api/v1/auth/oidc/acme/authorize?${flood}`),
      rest('query.parameters.too.many', `${CALLBACK}?${flood}`),
      rest('query.parameters.too.many', `/api/v1/users/me/security-events?${'&'.repeat(5_000)}`, bearer()),
      rest('query.parameters.too.many', `/api/v1/admin/users?${flood}`, bearer()),
      rest('path.malformed', '/api/v1/avatars/%ZZ'),
      rest('path.malformed', '/api/v1/avatars/%C3%28'),
    ]);
    // Up to the limit, a repeated parameter is an array: a value the route refuses, not a parser failure.
    const repeated = await get(`${lean.url}/api/v1/auth/oidc/acme/authorize?${Array.from({ length: QUERY_PARAMETER_LIMIT }, () => 'returnTo=a').join('&')}`);
    expect({ status: repeated.status, code: repeated.body.code }).toEqual({ status: 400, code: 'VALIDATION_FAILED' });
  });
});

describe('busboy (the avatar upload on REST) and graphql-upload (multipart on /graphql)', () => {
  const boundaryless = (parts: Part[]) => ({ ...multipart(parts), contentType: 'multipart/form-data' });
  const malformed = { body: Buffer.from('--b\r\nnot a header\r\n\r\nx\r\n--b--\r\n'), contentType: 'multipart/form-data; boundary=b' };
  const fields = (count: number) => Array.from({ length: count }, (_, i) => field(`f${i}`, '1'));

  it('answers each failure of a multipart body with its 4xx, in each transport’s shape', async () => {
    const avatar = (kind: ParserFailureKind, name: string, form: { body: Buffer; contentType: string }): Case => ({
      kind,
      name: `avatar: ${name}`,
      transport: 'REST',
      request: () => post(`${lean.url}${ME}/avatar`, form.contentType, form.body, bearer()),
    });
    const upload = (kind: ParserFailureKind, name: string, form: { body: Buffer; contentType: string }): Case => ({
      kind,
      name: `uploadAvatar: ${name}`,
      transport: 'GraphQL',
      request: () => post(`${lean.url}/graphql`, form.contentType, form.body, preflight()),
    });
    const ops = field('operations', OPERATIONS);
    const map = field('map', JSON.stringify({ '0': ['variables.file'] }));
    await expectAnswered([
      avatar('multipart.boundary.missing', 'no boundary', boundaryless([file('file', png)])),
      avatar('multipart.malformed', 'a malformed part header', malformed),
      avatar('multipart.parts.too.many', '21 fields before the file', multipart([...fields(21), file('file', png)])),
      avatar('multipart.parts.too.many', '10,000 fields', multipart(fields(10_000))),
      avatar('multipart.files.too.many', 'two files', multipart([file('file', png), file('file', png)])),
      avatar('multipart.files.too.many', '1,000 files', multipart(Array.from({ length: 1_000 }, () => file('file', png)))),
      upload('multipart.boundary.missing', 'no boundary', boundaryless([ops, map, file('0', png)])),
      upload('multipart.malformed', 'a malformed part header', malformed),
      upload('multipart.files.too.many', 'a map of two files', multipart([ops, field('map', JSON.stringify({ '0': ['variables.file'], '1': ['variables.file'] })), file('0', png), file('1', png)])),
      upload('multipart.files.too.many', 'a map of 1,000 files', multipart([ops, field('map', JSON.stringify(Object.fromEntries(Array.from({ length: 1_000 }, (_, i) => [String(i), ['variables.file']])))), file('0', png)])),
      upload('multipart.field.too.large', 'operations over 100 KiB', multipart([field('operations', ' '.repeat(200_000)), map])),
      upload('multipart.request.invalid', 'operations not JSON', multipart([field('operations', '{"query":'), map, file('0', png)])),
      upload('multipart.request.invalid', 'map before operations', multipart([map, ops, file('0', png)])),
    ]);
  });

  it('lets an upload cut off by its client go without an error line, on both transports', async () => {
    const form = multipart([field('operations', OPERATIONS), field('map', JSON.stringify({ '0': ['variables.file'] })), file('0', await solid(64, 64, 'png'))]);
    const headers = { 'content-type': form.contentType, ...preflight() };
    await cutOff(lean.url, `${ME}/avatar`, headers, form.body);
    await cutOff(lean.url, '/graphql', headers, form.body);
    meet('multipart.aborted', 'unanswered');
    expect((await get(`${lean.url}/healthz`)).status).toBe(200);
    expect(errorLines(lean)).toEqual([]);
    // What the readers fail such a request with is the kind above.
    const sendCutOff = (url: string) => cutOff(url, '/', { 'content-type': form.contentType }, form.body);
    const rest = await errorOf([async (req) => void (await readSingleFile(req, { field: 'file', maxBytes: 100_000 }, (s) => s.toArray(), async () => undefined))], sendCutOff);
    expect(rest).toMatchObject({ code: PARSER_FAILURES['multipart.aborted'].code, message: PARSER_FAILURES['multipart.aborted'].message });
    // graphql-upload hears either the client leave (its 499) or busboy find the form cut off first.
    expect(['multipart.aborted', 'multipart.malformed']).toContain(uploadErrorKind(await errorOf([graphqlUploadExpress()], sendCutOff)));
    meet('multipart.aborted', 'library');
  });
});

describe("graphql-js's coercion of variables", () => {
  it('answers variables of thousands of wrong fields VALIDATION_FAILED, its error limit included, with no error line', async () => {
    const input = Object.fromEntries(Array.from({ length: 2_000 }, (_, i) => [`f${i}`, i]));
    const body = JSON.stringify({ query: 'mutation ($input: SendCodeInput!) { sendCode(input: $input) { expiresIn } }', variables: { input } });
    for (const t of [lean, plain]) {
      const res = await post(`${t.url}/graphql`, JSON_TYPE, body);
      const codes = new Set<string>(res.body.errors.map((e: { extensions: { code: string } }) => e.extensions.code));
      expect({ status: res.status, codes: [...codes], errors: res.body.errors.length }).toEqual({ status: 400, codes: ['VALIDATION_FAILED'], errors: 51 });
    }
    expect([...errorLines(lean), ...errorLines(plain)]).toEqual([]);
  });
});

describe('the failures this service cannot meet over HTTP', () => {
  it('maps what the libraries raise for them to their 4xx all the same', async () => {
    const form = (url: string) => post(`${url}/`, FORM, 'a[b][c]=1');
    const json = (url: string) => post(`${url}/`, JSON_TYPE, '{}');
    /** A handler that breaks the request before body-parser reads it, as nothing in the service does. */
    const breaking = (breakIt: (req: express.Request) => void): express.RequestHandler => (req, _res, next) => {
      breakIt(req);
      next();
    };
    const refuse = () => {
      throw new Error('refused');
    };
    // body-parser 2's typings predate its depth option.
    const deep = express.urlencoded({ extended: true, depth: 1 } as Parameters<typeof express.urlencoded>[0]);
    const raised: [ParserFailureKind, unknown][] = [
      ['querystring.parse.rangeError', await errorOf([deep], form)],
      ['entity.verify.failed', await errorOf([express.json({ verify: refuse })], json)],
      ['request.size.invalid', await errorOf([breaking((req) => (req.headers['content-length'] = '100')), express.json()], json)],
      ['stream.encoding.set', await errorOf([breaking((req) => req.setEncoding('utf8')), express.json()], json)],
      [
        'stream.not.readable',
        await errorOf(
          [
            breaking((req) => {
              Object.defineProperty(req, 'complete', { get: () => false, set: () => undefined });
              Object.defineProperty(req, 'readable', { get: () => false });
            }),
            express.json(),
          ],
          json,
        ),
      ],
    ];
    for (const [kind, error] of raised) {
      expect({ kind, found: bodyErrorKind(error) }).toEqual({ kind, found: kind });
      const mapped = toHttpAppError(error);
      expect({ kind, code: mapped.code, message: mapped.message }).toEqual({ kind, code: PARSER_FAILURES[kind].code, message: PARSER_FAILURES[kind].message });
      meet(kind, 'library');
    }
  });
});

describe('the OpenAPI document', () => {
  it('declares the 413 and 415 of the parsers on the routes that read a body, a form or a query string', async () => {
    const { paths } = (await get(`${lean.url}/api/v1/openapi.json`)).body as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
    const statuses = (path: string, method: string) => Object.keys(paths[path]![method]!.responses);
    expect(statuses(SEND, 'post')).toEqual(expect.arrayContaining(['413', '415']));
    expect(statuses('/api/v1/auth/oidc/{provider}/callback', 'post')).toEqual(expect.arrayContaining(['413', '415']));
    expect(statuses('/api/v1/auth/oidc/{provider}/callback', 'get')).toContain('413');
    expect(statuses('/api/v1/users/me/avatar', 'post')).toEqual(expect.arrayContaining(['413', '415']));
  });
});

describe('the table of parser failures', () => {
  it('has a 4xx for every kind, and every kind was met above: over HTTP unless the service cannot meet it', () => {
    const unmet: string[] = [];
    for (const [kind, failure] of Object.entries(PARSER_FAILURES) as [ParserFailureKind, (typeof PARSER_FAILURES)[ParserFailureKind]][]) {
      const status = describeCode(failure.code).status;
      expect({ kind, clientError: status >= 400 && status < 500 }).toEqual({ kind, clientError: true });
      const how = met.get(kind) ?? new Set();
      const enough = 'unreachable' in failure ? how.has('library') : how.has('answered') || (how.has('unanswered') && how.has('library'));
      if (!enough) unmet.push(`${kind} (${[...how].join(', ') || 'never'})`);
    }
    expect(unmet).toEqual([]);
  });
});
