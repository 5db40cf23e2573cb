// A TCP relay between a server and PostgreSQL that counts the statements the server sends: each
// simple-protocol Query ('Q') and each extended-protocol Execute ('E') message is one. Used to report
// how many statements a request costs, from the wire, whichever library sent them.
import { createServer, connect, type Server, type Socket } from 'node:net';

/** The SSLRequest and GSSENCRequest codes: an untyped message after which another untyped one (the startup) follows. */
const NEGOTIATIONS = new Set([80877103, 80877104]);

export interface StatementCounter {
  /** The relay's DATABASE_URL: the same database, reached through the relay. */
  url: string;
  /** Statements sent by every connection so far. */
  readonly statements: number;
  close(): Promise<void>;
}

export async function statementCounter(databaseUrl: string): Promise<StatementCounter> {
  const target = new URL(databaseUrl);
  const sockets = new Set<Socket>();
  let statements = 0;
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    sockets.add(client).add(upstream);
    let buffered: Buffer = Buffer.alloc(0);
    let untyped = true;
    client.on('data', (chunk: Buffer) => {
      upstream.write(chunk);
      buffered = buffered.length ? Buffer.concat([buffered, chunk]) : chunk;
      let at = 0;
      for (;;) {
        if (untyped) {
          if (buffered.length - at < 8) break;
          const length = buffered.readInt32BE(at);
          if (buffered.length - at < length) break;
          untyped = NEGOTIATIONS.has(buffered.readInt32BE(at + 4));
          at += length;
          continue;
        }
        if (buffered.length - at < 5) break;
        const type = buffered[at];
        const length = buffered.readInt32BE(at + 1);
        if (buffered.length - at < 1 + length) break;
        if (type === 0x51 /* Q */ || type === 0x45 /* E */) statements++;
        at += 1 + length;
      }
      buffered = buffered.subarray(at);
    });
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const url = new URL(databaseUrl);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return {
    url: url.toString(),
    get statements() {
      return statements;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
