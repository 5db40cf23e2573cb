// The real accounts, sessions, passkeys and deliveries of a field sweep (field-sweep.test.ts): the
// signed-in ADMIN most requests carry, another account to act on, and throwaway ones for requests
// that may end, block, demote or delete the account or session they name.
import { SoftAuthenticator, type RegistrationResponseJson } from '../helpers/soft-authenticator.js';
import type { Rng } from './random.js';
import { makeAdmin } from './service.js';
import type { Session, Sessions } from './sessions.js';

/** The origin the sweep's service accepts passkey ceremonies from (WEBAUTHN_ORIGINS). */
export const PASSKEY_ORIGIN = 'https://sweep.example.com';

export class Fixtures {
  /** The signed-in ADMIN of the run. */
  main!: Session;
  /** Another account (a USER), with a passkey of its own: what the operators' requests act on. */
  other!: Session;
  otherPasskey!: string;
  /** A passkey of the main user that only renames touch. */
  mainPasskey!: string;
  /** A webhook delivery of the run (the outbox is on). */
  delivery!: string;
  /** Sign-ins of the fixtures, and the passkeys they registered. */
  made = { admins: 0, users: 0, passkeys: 0, registerCodes: 0 };

  constructor(
    private readonly url: string,
    readonly sessions: Sessions,
    /** Phone numbers of the registrations (not the sweep's own randomness). */
    private readonly rng: Rng,
  ) {}

  async start(): Promise<void> {
    await this.sessions.start();
    this.main = this.sessions.main;
    this.other = await this.user();
    this.otherPasskey = await this.passkey(this.other);
    this.mainPasskey = await this.passkey(this.main);
    const deliveries = await this.call('GET', '/api/v1/admin/webhook-deliveries?limit=1', this.main);
    this.delivery = (deliveries as { items: { id: string }[] }).items[0]!.id;
  }

  /** A new account, signed in by SMS code. */
  async user(): Promise<Session> {
    this.made.users += 1;
    return this.sessions.signIn();
  }

  /** A new account, signed in, made an ADMIN: a caller that a request may block, demote or delete. */
  async admin(): Promise<Session> {
    const session = await this.sessions.signIn();
    await makeAdmin(session.userId);
    this.made.admins += 1;
    return session;
  }

  /** A passkey registration of a new credential for `session`'s account, as a browser would make it. */
  async registration(session: Session): Promise<RegistrationResponseJson> {
    const options = (await this.call('POST', '/api/v1/users/me/passkeys/registration-options', session)) as { challenge: string; user: { id: string } };
    return new SoftAuthenticator(PASSKEY_ORIGIN).register(options);
  }

  /** A new passkey of `session`'s account; its id. */
  async passkey(session: Session): Promise<string> {
    const response = await this.registration(session);
    const added = (await this.call('POST', '/api/v1/users/me/passkeys', session, { response, name: 'sweep' })) as { id: string };
    this.made.passkeys += 1;
    return added.id;
  }

  /** A phone without an account and a register code sent to it. */
  async registerCode(): Promise<{ phone: string; code: string }> {
    this.made.registerCodes += 1;
    const phone = `+86136${this.rng.digits(8)}`;
    return { phone, code: await this.sessions.code(phone, 'register') };
  }

  private async call(method: string, path: string, session: Session, body?: unknown): Promise<unknown> {
    const response = await fetch(`${this.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${session.accessToken}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${text}`);
    return JSON.parse(text);
  }
}
