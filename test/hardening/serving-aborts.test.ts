// Files served to a client that leaves, asks for an odd range or frames its request badly: the
// avatar and explorer files answer or let go, never with a 5xx, an error line or an open file left.
import { describe, expect, it } from '@jest/globals';
import { readdir, readlink } from 'node:fs/promises';
import { connect } from 'node:net';
import { signInWithCode } from '../helpers/factories.js';
import { useTestServer, type TestServer } from '../helpers/server.js';
import { restUpload, solid } from '../avatar/support.js';

const errorLines = (t: TestServer) => t.logs().split('\n').filter((line) => /"level":(50|60)\b/.test(line));

/** Writes `head` on a raw connection, then leaves as `how` says; resolves with what came back. */
function rawRequest(url: string, head: string, how: 'close-at-once' | 'close-after-first-bytes' | 'read-all'): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    let received = '';
    socket.on('connect', () => {
      // 'read-all' sends its end too, so that a server waiting for a body it was promised stops.
      if (how === 'read-all') socket.end(head);
      else socket.write(head);
      if (how === 'close-at-once') socket.destroy();
    });
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
      if (how === 'close-after-first-bytes') socket.destroy();
    });
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(received));
  });
}

/** The files under `dir` this process holds open. */
async function openFilesUnder(dir: string): Promise<string[]> {
  const targets = await Promise.all((await readdir('/proc/self/fd')).map((fd) => readlink(`/proc/self/fd/${fd}`).catch(() => '')));
  return targets.filter((target) => target.startsWith(dir));
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

describe('avatars fetched by clients that leave', () => {
  const t = useTestServer({}, { captureLogs: true });

  it('closes the file and logs no error when the client is gone before or while it is sent', async () => {
    const user = await signInWithCode(t);
    const uploaded = await restUpload(t, user.accessToken, await solid(512, 512, 'png'));
    const path = uploaded.body.avatarUrl as string;
    const heads = [
      `GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
      `GET ${path} HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n`,
      `HEAD ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
    ];
    for (let round = 0; round < 10; round++) {
      for (const head of heads) {
        await rawRequest(t.url, head, 'close-at-once');
        await rawRequest(t.url, head, 'close-after-first-bytes');
      }
    }
    await settle();
    expect(await openFilesUnder(t.dataDir)).toEqual([]);
    expect(errorLines(t)).toEqual([]);
    // And a client that stays gets the whole image.
    const whole = await fetch(`${t.url}${path}`);
    expect(whole.status).toBe(200);
    expect((await whole.arrayBuffer()).byteLength).toBe(Number(whole.headers.get('content-length')));
  });
});

describe('a GraphQL request on a kept-alive connection, left by its client', () => {
  const t = useTestServer({}, { captureLogs: true });

  it('is logged as aborted (warn), never as an error: a browser tab closed while the console waits for an answer', async () => {
    const user = await signInWithCode(t);
    const body = JSON.stringify({ query: '{ me { id } mySessions { id } }' });
    const second = `POST /graphql HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${user.accessToken}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    for (let round = 0; round < 5; round++) {
      // The connection's first request is answered; the second is left while it runs.
      await new Promise<void>((resolve) => {
        const { hostname, port } = new URL(t.url);
        const socket = connect(Number(port), hostname, () => socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n'));
        let sent = false;
        socket.on('data', () => {
          if (sent) return;
          sent = true;
          socket.write(second);
          setTimeout(() => socket.destroy(), round);
        });
        socket.on('error', () => undefined);
        socket.on('close', () => resolve());
      });
    }
    await settle();
    expect(errorLines(t)).toEqual([]);
    expect(t.logs()).toContain('request aborted: the connection closed before the response was sent');
  });
});

describe('explorer files', () => {
  const t = useTestServer({}, { captureLogs: true });

  async function scriptUrl(): Promise<string> {
    const page = await (await fetch(`${t.url}/graphql`, { headers: { accept: 'text/html' } })).text();
    return /src="(\/graphql\/explorer\/[^"]+\/graphiql\.min\.js)"/.exec(page)![1]!;
  }

  it('answers an unsatisfiable or absurd range with the whole file, not a 500', async () => {
    const url = await scriptUrl();
    const size = (await (await fetch(`${t.url}${url}`)).arrayBuffer()).byteLength;
    for (const range of ['bytes=5-1', 'bytes=99999999999999999999-', `bytes=${size + 10}-`, 'bytes=0-10']) {
      const res = await fetch(`${t.url}${url}`, { headers: { range } });
      expect({ range, status: res.status, bytes: (await res.arrayBuffer()).byteLength }).toEqual({ range, status: 200, bytes: size });
    }
    expect(errorLines(t)).toEqual([]);
  });

  it('logs no error for a client that leaves mid-file or frames its request badly', async () => {
    const url = await scriptUrl();
    for (let round = 0; round < 5; round++) {
      await rawRequest(t.url, `GET ${url} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`, 'close-after-first-bytes');
      await rawRequest(t.url, `GET ${url} HTTP/1.1\r\nHost: x\r\n\r\nGET ${url} HTTP/1.1\r\nHost: x\r\n\r\nGET ${url} HTTP/1.1\r\nHo`, 'close-after-first-bytes');
    }
    for (const framing of ['Transfer-Encoding: xchunked', 'Transfer-Encoding: chunked\r\n\r\nzz', 'Content-Length: 200000']) {
      const answer = await rawRequest(t.url, `GET ${url} HTTP/1.1\r\nHost: x\r\n${framing}\r\n\r\n`, 'read-all');
      expect(answer).not.toMatch(/^HTTP\/1\.1 5/);
    }
    await settle();
    expect(errorLines(t)).toEqual([]);
  });
});

describe('requests cut off on a kept-alive connection', () => {
  const t = useTestServer({}, { captureLogs: true });

  it('logs a request in flight when its client closes the connection as aborted, not as an error, after an earlier request on it', async () => {
    const { hostname, port } = new URL(t.url);
    const socket = connect(Number(port), hostname);
    socket.on('error', () => undefined);
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write('GET /api/v1/auth/config HTTP/1.1\r\nHost: x\r\n\r\n');
    await new Promise((resolve) => socket.once('data', resolve));
    // The second request's body never comes: it is in flight when the client leaves (as a load
    // generator's connections are when its time is up).
    socket.write('POST /api/v1/auth/send-code HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"phone":');
    await settle();
    socket.destroy();
    await settle();
    expect(errorLines(t)).toEqual([]);
    expect(t.logs()).toMatch(/"path":"\/api\/v1\/auth\/send-code".*"aborted":true.*"msg":"request aborted: the connection closed before the response was sent"/);
  });
});
