// API.md 8.0: no upload ends the process or leaves a staged file behind. A valid upload request is
// cut at every kind of place (preamble, boundaries, part headers, field values, file bytes, the
// final boundary) and, at each cut, (a) ended there: the request is complete but its multipart body
// is not, and the client waits for the answer: 400 VALIDATION_FAILED; (b) hung up (FIN) or (c)
// reset (RST) there, the body half sent, at once and a moment later. Each transport and each way
// gets a cold service (one that never staged an upload: the first upload's stream used to go
// unheard while the staging directory was made), swept, then warmed by a successful upload and
// swept again. Afterwards the service lives and is ready, nothing is staged in DATA_DIR/tmp nor
// buffered in its temporary directory, and no error was logged. The service runs as its own
// process, so that a crash shows as a dead process rather than as a dead test runner.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync } from 'node:fs';
import { mkdir, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newPhone, TEST_JWT_SECRET } from '../helpers/server.js';
import { sleep, waitFor } from '../helpers/wait.js';
import { gqlUploadBody, multipart, RawUpload, send, settledTmpFiles, solid, type Multipart, type RawResponse } from '../avatar/support.js';
import { signInByOutbox, startService, type ServiceProcess } from '../operability/support.js';

interface Transport {
  name: string;
  path: string;
  headers: Record<string, string>;
  request(image: Buffer): Multipart;
  /**
   * Whether a body whose parts all arrived whole, only the final boundary's `--` missing, is
   * accepted. GraphQL runs the operation while the body arrives (graphql-upload): by the time the
   * missing end shows, the complete file is the avatar, and a refusal would be untrue. REST reads
   * the form to its end first.
   */
  takesWholeParts: boolean;
  /** The code and status of a refusal, or of acceptance ('OK'). */
  answer(res: RawResponse): { status: number; code: string | undefined };
}

const transports: Transport[] = [
  {
    name: 'REST',
    path: '/api/v1/users/me/avatar',
    headers: {},
    request: (image) => multipart([{ name: 'file', filename: 'a.png', contentType: 'image/png', data: image }]),
    takesWholeParts: false,
    answer: (res) => ({ status: res.status, code: res.status === 200 ? 'OK' : res.body?.code }),
  },
  {
    name: 'GraphQL',
    path: '/graphql',
    headers: { 'apollo-require-preflight': 'true' },
    request: (image) => gqlUploadBody([{ name: '0', filename: 'a.png', contentType: 'image/png', data: image }]),
    takesWholeParts: true,
    answer: (res) => ({ status: res.status, code: res.body?.data?.uploadAvatar ? 'OK' : res.body?.errors?.[0]?.extensions?.code }),
  },
];
const WAYS = ['ended', 'hung up', 'reset'] as const;
type Way = (typeof WAYS)[number];

const PREAMBLE = 'This is the preamble, which a multipart parser skips.\r\n';

interface Cut {
  at: number;
  label: string;
  /** Every part arrived whole: only the final boundary's closing `--` is missing. */
  wholeParts?: boolean;
}

/** The places to cut `body` (a preamble, then the parts): every kind of place a parser can be in. */
function cutPoints(body: Buffer, boundary: string): Cut[] {
  const delimiter = `--${boundary}`;
  const cuts: Cut[] = [
    { at: 0, label: 'no body' },
    { at: 10, label: 'inside the preamble' },
  ];
  for (let at = body.indexOf(delimiter), part = 1; at >= 0; at = body.indexOf(delimiter, at + 1), part++) {
    const after = at + delimiter.length;
    if (body.toString('latin1', after, after + 2) === '--') {
      cuts.push(
        { at: at - 2, label: 'before the final boundary' },
        { at: at + 6, label: 'inside the final boundary' },
        { at: after, label: 'the final boundary without its --', wholeParts: true },
        { at: after + 1, label: 'the final boundary with one -', wholeParts: true },
      );
      break;
    }
    const blank = body.indexOf('\r\n\r\n', at);
    const end = body.indexOf(`\r\n${delimiter}`, blank);
    const spread = [1, 2, 3].map((q) => blank + 4 + Math.floor(((end - blank - 4) * q) / 4));
    cuts.push(
      { at: at + 1, label: `inside boundary ${part}` },
      { at: after, label: `boundary ${part} without its CRLF` },
      { at: after + 2, label: `before the headers of part ${part}` },
      { at: after + 20, label: `inside the headers of part ${part}` },
      { at: blank + 2, label: `before the blank line of part ${part}` },
      { at: blank + 4, label: `before the data of part ${part}` },
      ...spread.map((cut, i) => ({ at: cut, label: `at ${i + 1}/4 of the data of part ${part}` })),
      { at: end, label: `at the end of the data of part ${part}` },
      { at: end + 1, label: `between the CR and LF after part ${part}` },
    );
  }
  return cuts;
}

const root = mkdtempSync(join(tmpdir(), 'meeting-accounts-upload-streams-'));
const EMBEDDED = Boolean(process.env.TEST_EMBEDDED_DATABASE);
/** One cold service per transport and way. */
const services = new Map<string, { service: ServiceProcess; dataDir: string; osTmp: string }>();
let token: string;
let image: Buffer;

beforeAll(async () => {
  image = await solid(64, 64, 'png');
  const names = transports.flatMap((transport) => WAYS.map((way) => `${transport.name} ${way}`));
  const start = async (name: string, i: number) => {
    const dir = join(root, String(i));
    const osTmp = join(dir, 'os-tmp');
    await mkdir(osTmp, { recursive: true });
    const service = await startService(
      {
        NODE_ENV: 'test',
        HOST: '127.0.0.1',
        PORT: '0',
        LOG_LEVEL: 'info',
        DATABASE_URL: process.env.TEST_WORKER_DATABASE_URL!,
        DATABASE_POOL_SIZE: EMBEDDED ? '1' : '2',
        DATA_DIR: join(dir, 'data'),
        // graphql-upload buffers files in the system's temporary directory: this service's own.
        TMPDIR: osTmp,
        JWT_SECRET: TEST_JWT_SECRET,
        SMS_PROVIDER: 'file',
        SMS_OUTBOX_FILE: join(dir, 'sms.jsonl'),
        BCRYPT_COST: '4',
      },
      30_000,
    );
    services.set(name, { service, dataDir: join(dir, 'data'), osTmp });
  };
  // The embedded database serves every connection from one session: services starting together
  // (migrations, then their first queries) would interleave their statements there.
  if (EMBEDDED) for (const [i, name] of names.entries()) await start(name, i);
  else await Promise.all(names.map(start));
  // One session serves every service: they share the database and the signing key.
  const first = services.get(names[0]!)!;
  token = (await signInByOutbox(first.service.url, join(root, '0', 'sms.jsonl'), newPhone())).accessToken;
}, 60_000);

afterAll(async () => {
  await Promise.all([...services.values()].map(({ service }) => service.kill()));
  await rm(root, { recursive: true, force: true });
});

/**
 * A client that goes away with the bytes sent, at once (the service meets the end while it is still
 * authenticating, or setting up for the file it just announced) or a moment later (while it reads).
 * Which one the service meets is a race, so each cut is tried at a few moments.
 */
async function goAway(url: string, path: string, headers: Record<string, string>, full: Buffer, sent: Buffer, way: Way): Promise<void> {
  for (const pause of [0, 2, 10]) {
    const raw = await RawUpload.open({ url }, path, headers, full.length);
    void raw.write(sent);
    if (pause) await sleep(pause);
    if (way === 'reset') raw.reset();
    else raw.destroy();
  }
}

/** Cuts the request at every cut point, the given way; the service must live through each. */
async function sweep(transport: Transport, way: Way, service: ServiceProcess): Promise<void> {
  const { url } = service;
  const { body, contentType } = transport.request(image);
  const full = Buffer.concat([Buffer.from(PREAMBLE), body]);
  const boundary = /boundary=(.+)$/.exec(contentType)![1]!;
  const headers = { ...transport.headers, 'content-type': contentType, authorization: `Bearer ${token}` };
  const answers: { cut: string; status: number; code: string | undefined; internals: boolean }[] = [];
  const cuts = cutPoints(full, boundary);
  for (const cut of cuts) {
    const sent = full.subarray(0, cut.at);
    if (way === 'ended') {
      const res = await send(`${url}${transport.path}`, 'POST', headers, sent);
      const internals = /\\n\s+at |node_modules|\.[jt]s:\d+|\/tmp\/|upload-[0-9a-f]{24}/.test(res.raw.toString());
      answers.push({ cut: cut.label, ...transport.answer(res), internals });
    } else {
      await goAway(url, transport.path, headers, full, sent, way);
    }
    const alive = await fetch(`${url}/healthz`).then((r) => r.status === 200, () => false);
    if (!alive || service.child.exitCode !== null) {
      throw new Error(`the service died after ${transport.name} ${way} at "${cut.label}":\n${service.stderr().slice(-2_000)}`);
    }
  }
  if (way === 'ended') {
    const expected = (cut: Cut) => (cut.wholeParts && transport.takesWholeParts ? { status: 200, code: 'OK' } : { status: 400, code: 'VALIDATION_FAILED' });
    expect(answers).toEqual(cuts.map((cut) => ({ cut: cut.label, ...expected(cut), internals: false })));
  }
}

/** Alive, ready, nothing staged in DATA_DIR/tmp nor buffered in the system's temporary directory, no error logged. */
async function expectUnharmed(name: string): Promise<void> {
  const { service, dataDir, osTmp } = services.get(name)!;
  expect(service.child.exitCode).toBeNull();
  expect((await fetch(`${service.url}/readyz`)).status).toBe(200);
  expect(await settledTmpFiles({ dataDir })).toEqual([]);
  let buffered: string[] = [];
  await waitFor(async () => (buffered = await readdir(osTmp)).length === 0, 2_000, 50);
  expect(buffered).toEqual([]);
  const errors = service.stdout().split('\n').filter((line) => /"level":(50|60)\b/.test(line));
  expect(errors).toEqual([]);
}

for (const transport of transports) {
  describe(`${transport.name} uploads cut off`, () => {
    for (const way of WAYS) {
      it(`${way} at every kind of place: cold, then warm after a successful upload`, async () => {
        const name = `${transport.name} ${way}`;
        const { service } = services.get(name)!;
        await sweep(transport, way, service);
        await expectUnharmed(name);

        const { body, contentType } = transport.request(image);
        const headers = { ...transport.headers, 'content-type': contentType, authorization: `Bearer ${token}` };
        const accepted = await send(`${service.url}${transport.path}`, 'POST', headers, body);
        expect(transport.answer(accepted)).toEqual({ status: 200, code: 'OK' });

        await sweep(transport, way, service);
        await expectUnharmed(name);
      });
    }
  });
}
