// The clients of the live-events benchmark (bench/live.bench.ts): raw graphql-transport-ws sockets,
// each subscribed to its account's events, recording when an event or the close arrives.
import { once } from 'node:events';
import WebSocket from 'ws';
import { ACCOUNT_EVENTS } from '../test/helpers/live.js';

/** An event or close not seen by then counts as lost. */
export const WAIT_MS = 5_000;
/** Handshakes (upgrade, connection_init, the session check, connection_ack) in flight while the sockets open. */
export const OPENING_IN_FLIGHT = 100;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Arrival {
  /** performance.now() on arrival. */
  at: number;
  /** Milliseconds from the event's `at` (B's clock, which is this machine's) to its arrival. */
  sincePublication: number;
}

/** One client socket speaking graphql-transport-ws, subscribed to its account's events. */
export class Subscriber {
  private readonly waiting: { type: string; resolve: (arrival: Arrival) => void }[] = [];
  private closeWaiter: ((at: number) => void) | undefined;
  closed: { code: number; at: number } | undefined;
  errors = 0;

  private constructor(readonly socket: WebSocket) {
    // A failed socket also closes: the close is what counts.
    socket.on('error', () => undefined);
    socket.on('message', (data) => {
      const message = JSON.parse(String(data)) as { type: string; payload?: { data?: { accountEvents?: { type: string; at: string } } } };
      if (message.type === 'ping') socket.send(JSON.stringify({ type: 'pong' }));
      else if (message.type === 'error') this.errors++;
      else if (message.type === 'next') {
        const arrival = { at: performance.now(), sincePublication: Date.now() - Date.parse(message.payload?.data?.accountEvents?.at ?? '') };
        const type = message.payload?.data?.accountEvents?.type;
        const index = this.waiting.findIndex((w) => w.type === type);
        if (index >= 0) this.waiting.splice(index, 1)[0]!.resolve(arrival);
      }
    });
    socket.on('close', (code) => {
      this.closed = { code, at: performance.now() };
      this.closeWaiter?.(this.closed.at);
    });
  }

  /** Opens, signs in with `token`, subscribes; resolves once the server acknowledged the connection. */
  static open(url: string, token: string): Promise<Subscriber> {
    const socket = new WebSocket(url, 'graphql-transport-ws', { perMessageDeflate: false });
    const subscriber = new Subscriber(socket);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        socket.terminate();
        reject(new Error('no connection_ack within 10 s'));
      }, 10_000);
      socket.once('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${token}` } })));
      socket.on('message', (data) => {
        if ((JSON.parse(String(data)) as { type: string }).type !== 'connection_ack') return;
        clearTimeout(timer);
        socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query: ACCOUNT_EVENTS } }));
        resolve(subscriber);
      });
      socket.once('error', (error) => (clearTimeout(timer), reject(error)));
      socket.once('close', (code, reason) => (clearTimeout(timer), reject(new Error(`closed ${code} ${String(reason)} before connection_ack`))));
    });
  }

  /** The next event of `type` when it arrives, or undefined after WAIT_MS. */
  next(type: string): Promise<Arrival | undefined> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(undefined), WAIT_MS);
      this.waiting.push({ type, resolve: (arrival) => (clearTimeout(timer), resolve(arrival)) });
    });
  }

  /** When the socket closes with 4401 (performance.now()), or undefined after WAIT_MS or on another code. */
  closedUnauthorized(): Promise<number | undefined> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(undefined), WAIT_MS);
      this.closeWaiter = (at) => (clearTimeout(timer), resolve(this.closed!.code === 4401 ? at : undefined));
    });
  }
}

/** Opens a socket per token into `subscribers` (where a failure leaves the ones opened to be closed), `OPENING_IN_FLIGHT` handshakes at a time. */
export async function openAll(url: string, tokens: readonly string[], subscribers: Subscriber[]): Promise<Subscriber[]> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(OPENING_IN_FLIGHT, tokens.length) }, async () => {
      while (next < tokens.length) {
        const i = next++;
        subscribers[i] = await Subscriber.open(url, tokens[i]!);
      }
    }),
  );
  return subscribers;
}

export async function closeAll(subscribers: readonly (Subscriber | undefined)[]): Promise<void> {
  await Promise.all(
    subscribers.map(async (s) => {
      if (!s || s.socket.readyState === WebSocket.CLOSED) return;
      const closed = once(s.socket, 'close');
      s.socket.close(1000);
      await Promise.race([closed, sleep(2_000)]);
      s.socket.terminate();
    }),
  );
}
