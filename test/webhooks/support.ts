// What the webhook tests share: a real receiver on 127.0.0.1 that verifies each request with the
// Standard Webhooks library (as a receiver would) and answers as the test tells it, and the signing
// settings of the service under test.
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export const WEBHOOK_SECRET = `whsec_${Buffer.from('a-test-signing-key-of-32-bytes!!').toString('base64')}`;

export interface Received {
  id: string;
  headers: IncomingHttpHeaders;
  /** The raw body, as signed. */
  body: string;
  /** The body as the library returned it after verifying the signature; undefined when it did not verify. */
  event: { type: string; timestamp: string; data: any } | undefined;
  /** Why verification failed, if it did. */
  verifyError?: string;
  at: number;
}

/** What the receiver answers: a status, or 'hang' (no answer until the test ends). */
type Answer = number | 'hang';

export interface Receiver {
  url: string;
  /** Every request, in arrival order (the ones answered non-2xx and unanswered included). */
  received: Received[];
  /** The requests answered 2xx, in arrival order. */
  delivered(): Received[];
  /** How to answer each request (default 204). */
  answer: (request: Received) => Answer;
  close(): Promise<void>;
}

/** Starts a receiver on a free loopback port (or `port`, to take one back after a restart). */
export async function startReceiver(port = 0): Promise<Receiver> {
  const verifier = new Webhook(WEBHOOK_SECRET);
  const hanging = new Set<() => void>();
  const answered = new Map<Received, number>();
  const receiver: Receiver = {
    url: '',
    received: [],
    delivered: () => receiver.received.filter((r) => (answered.get(r) ?? 0) >= 200 && (answered.get(r) ?? 0) < 300),
    answer: () => 204,
    close: async () => {
      for (const release of hanging) release();
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const received: Received = { id: String(req.headers['webhook-id']), headers: req.headers, body, event: undefined, at: Date.now() };
      try {
        received.event = verifier.verify(body, req.headers as Record<string, string>) as Received['event'];
      } catch (error) {
        received.verifyError = (error as Error).message;
      }
      receiver.received.push(received);
      const answer = receiver.answer(received);
      if (answer === 'hang') {
        const release = () => res.destroy();
        hanging.add(release);
        res.on('close', () => hanging.delete(release));
        return;
      }
      answered.set(received, answer);
      res.statusCode = answer;
      res.end();
    });
  });
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return receiver;
}

/** The service's webhook settings for `urls`, with a fast retry schedule unless told otherwise. */
export function webhookEnv(urls: string[], overrides: Record<string, string> = {}): Record<string, string> {
  return { WEBHOOK_URLS: urls.join(','), WEBHOOK_SECRET, WEBHOOK_TIMEOUT_MS: '1000', WEBHOOK_RETRY_SCHEDULE: '50ms,100ms', ...overrides };
}

/** The verified events of the deliveries, in arrival order. */
export function eventsOf(received: Received[]): { type: string; data: any }[] {
  return received.map((r) => {
    if (!r.event) throw new Error(`delivery ${r.id} did not verify: ${r.verifyError}`);
    return { type: r.event.type, data: r.event.data };
  });
}
