// Sends the planned requests, a few at a time, and keeps what came back of each.
import { FRESH_TOKEN, MAIN_TOKEN, OWN_SID, serialize } from './draft.js';
import type { Planned } from './plan.js';
import type { Session, Sessions } from './sessions.js';
import { exchange, type Delivery, type Exchange } from './wire.js';

/** A request as it went out, and what came of it. */
export interface Sent {
  /** `#12`: its place in the plan (with the seed, it names the request); or the scenario's name for it. */
  id: string;
  planned: Planned;
  /** The request's bytes (all of them; `exchange.sent` says how many went out). */
  raw: Buffer;
  /** How it was sent (where it was cut, how the connection ended). */
  delivery: Delivery;
  started: number;
  ended: number;
  exchange: Exchange;
}

/** The service under test, as the sender needs it. */
export interface Service {
  port: number;
  sessions: Sessions;
  /** ms to wait for an answer. */
  timeoutMs: number;
}

const NO_SESSION: Session = { accessToken: 'no-session', userId: '', sid: '00000000-0000-0000-0000-000000000000', phone: '' };

export interface SendOptions {
  /** Stands for the main user (the deletion race). */
  as?: Session;
  /** How many bytes of the request to send (all unless given, or the draft's cut). */
  cutAt?: (raw: Buffer) => number;
  /** A slow sender sends bigger pieces so as to be done within this (2 s unless given). */
  dribbleMs?: number;
}

/** Sends `planned` and reads the outcome. */
export async function send(id: string, planned: Planned, service: Service, { as, cutAt, dribbleMs = 2000 }: SendOptions = {}): Promise<Sent> {
  const d = planned.draft;
  const main = as ?? service.sessions.main;
  const text = `${d.path}${d.headers.map(([, v]) => v).join('')}`;
  // A new user's session; if signing in fails, a token that names no session (never the main one,
  // which the request might end).
  const fresh = !as && text.includes(FRESH_TOKEN) ? await service.sessions.spare().catch(() => NO_SESSION) : undefined;
  const own = fresh ?? main;
  const fill = (value: string) =>
    value.includes('@@') ? value.replaceAll(MAIN_TOKEN, main.accessToken).replaceAll(FRESH_TOKEN, own.accessToken).replaceAll(OWN_SID, own.sid) : value;
  const raw = serialize(d, `127.0.0.1:${service.port}`, fill);
  const delivery = { ...d.delivery, cutAt: cutAt ? cutAt(raw) : d.cut === undefined ? undefined : Math.floor(d.cut * raw.length) };
  if (delivery.dribble) {
    const pieces = Math.max(1, Math.floor(dribbleMs / delivery.dribble.pauseMs));
    delivery.dribble = { ...delivery.dribble, bytes: Math.max(delivery.dribble.bytes, Math.ceil((delivery.cutAt ?? raw.length) / pieces)) };
  }
  const started = Date.now();
  const result = await exchange(service.port, raw, delivery, service.timeoutMs, d.method === 'HEAD');
  if (fresh && mayHaveSucceeded(result)) service.sessions.spent(fresh);
  return { id, planned, raw, delivery, started, ended: Date.now(), exchange: result };
}

/** Whether the request may have done what it asked (ended its session, say): no refusal was read. */
export function mayHaveSucceeded({ answers }: Exchange): boolean {
  const answer = answers[0];
  if (!answer) return true;
  if (answer.status >= 400) return false;
  // GraphQL answers 200 with errors and no data when it refused.
  const body = answer.body.toString('utf8');
  return !/^\{"errors":/.test(body) || /"data":\{/.test(body);
}

/** Runs `next()`'s tasks on `concurrency` lanes until it returns undefined. */
export async function pool(concurrency: number, next: () => (() => Promise<void>) | undefined): Promise<void> {
  const lane = async () => {
    for (let task = next(); task; task = next()) await task();
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
}

/** Sends the bytes of `s` again, the same way, alone. */
export function replay(s: Sent, service: Service): Promise<Exchange> {
  return exchange(service.port, s.raw, s.delivery, service.timeoutMs, s.planned.draft.method === 'HEAD');
}
