// The signed-in users of the fuzz run: one main session that most requests carry (an ADMIN, so that
// the operators' routes are fuzzed past their role check; signed in again if a request ended it), and
// new users' sessions for requests that may end theirs.
import { outboxCode, signInByOutbox } from '../operability/support.js';
import type { Rng } from './random.js';

export interface Session {
  accessToken: string;
  userId: string;
  sid: string;
  phone: string;
}

/** The session id (`sid` claim) of an access token. */
function sidOf(token: string): string {
  const payload = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as { sid?: string };
  return payload.sid ?? '';
}

export class Sessions {
  main!: Session;
  /** Sign-ins done by the run (the main one, again when it was ended, and new users'). */
  signIns = 0;
  failedSignIns = 0;

  constructor(
    private readonly url: string,
    private readonly outboxFile: string,
    /** Phone numbers of the run's own users (not the plan's randomness, which must not depend on timing). */
    private readonly rng: Rng,
    /** Makes an account an ADMIN, so that the operators' routes answer the main user past their role check. */
    private readonly makeAdmin: (userId: string) => Promise<void>,
  ) {}

  /** A new user, signed in by SMS code. */
  async signIn(): Promise<Session> {
    const phone = `+86137${this.rng.digits(8)}`;
    this.signIns += 1;
    const { accessToken, userId } = await signInByOutbox(this.url, this.outboxFile, phone).catch((error: unknown) => {
      this.failedSignIns += 1;
      throw error;
    });
    return { accessToken, userId, sid: sidOf(accessToken), phone };
  }

  private spareSession?: Promise<Session>;

  /**
   * A session for requests that may end it: shared until one of them may have ended it (then
   * `spent`), so that not every such request costs a sign-in.
   */
  spare(): Promise<Session> {
    this.spareSession ??= this.signIn();
    const current = this.spareSession;
    current.catch(() => {
      if (this.spareSession === current) this.spareSession = undefined;
    });
    return current;
  }

  /** The next `spare()` signs in anew (a request may have ended `session`). */
  spent(session: Session): void {
    void this.spareSession?.then((current) => {
      if (current === session) this.spareSession = undefined;
    });
  }

  async start(): Promise<void> {
    this.main = await this.admin();
  }

  /** A new user, made an ADMIN. */
  private async admin(): Promise<Session> {
    const session = await this.signIn();
    await this.makeAdmin(session.userId);
    return session;
  }

  /** Signs the main user in again (as a new user) when a request ended its session. */
  async keepMainAlive(): Promise<void> {
    const me = await fetch(`${this.url}/api/v1/users/me`, { headers: { authorization: `Bearer ${this.main.accessToken}` } }).catch(() => undefined);
    if (me?.status === 401) this.main = await this.admin();
  }

  /**
   * Values the requests should get right at times: the avatar key of a user of its own (left alone
   * by the run, so that the key stays valid) and a page cursor of the main user's security events.
   */
  async knownValues(image: Buffer): Promise<{ avatarKey?: string; cursor?: string }> {
    const owner = await this.signIn();
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(image)], { type: 'image/jpeg' }), 'avatar.jpg');
    const upload = await fetch(`${this.url}/api/v1/users/me/avatar`, { method: 'POST', headers: { authorization: `Bearer ${owner.accessToken}` }, body: form });
    const { avatarUrl } = (await upload.json()) as { avatarUrl?: string };
    // A second event (a new user has one, the sign-in), so that a page of one has a next.
    const authorization = `Bearer ${this.main.accessToken}`;
    await fetch(`${this.url}/api/v1/users/me`, { method: 'PATCH', headers: { authorization, 'content-type': 'application/json' }, body: '{"nickname":"Fuzzy"}' });
    const page = await fetch(`${this.url}/api/v1/users/me/security-events?limit=1`, { headers: { authorization } });
    const { nextCursor } = (await page.json()) as { nextCursor?: string };
    return { avatarKey: avatarUrl?.split('/').pop(), cursor: nextCursor ?? undefined };
  }

  /** A code for `purpose` sent to `phone`, read from the outbox. */
  async code(phone: string, purpose: string): Promise<string> {
    const sent = await fetch(`${this.url}/api/v1/auth/send-code`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ phone, purpose }),
    });
    if (sent.status !== 200) throw new Error(`send-code (${purpose}): ${sent.status} ${await sent.text()}`);
    return outboxCode(this.outboxFile, phone, purpose);
  }
}
