// An HTTP server on 127.0.0.1 standing in for a remote service in a test (not a test file).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * The lifecycle the fakes of remote services share: `up()` listens (on a random port the first
 * time, the same one after `down()`), `down()` stops listening and drops every connection and every
 * answer held back, so that the service meets a provider that is gone.
 */
export abstract class LocalServer {
  port = 0;
  private server?: Server;
  private readonly sockets = new Set<Socket>();
  /** Answers held back (a provider that never answers); `down()` drops them. */
  protected readonly hanging = new Set<ServerResponse>();

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  protected abstract onRequest(req: IncomingMessage, res: ServerResponse): void;

  /** Whether to keep a new connection; one refused is dropped at once. */
  protected accepts(_socket: Socket): boolean {
    return true;
  }

  async up(): Promise<void> {
    const server = createServer((req, res) => this.onRequest(req, res));
    server.on('connection', (socket) => {
      if (!this.accepts(socket)) {
        socket.destroy();
        return;
      }
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    server.listen(this.port, '127.0.0.1');
    await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  /** Stops listening: connections to the port are refused until `up()`. */
  async down(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    for (const res of this.hanging) res.destroy();
    this.hanging.clear();
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
