import { randomUUID } from 'node:crypto';
import type { Database } from '../../db/database.js';
import type { ProvenIdentity } from '../auth/second-factor.js';
import { IdentityTicket } from './identity-ticket.entity.js';
import { ExternalIdentity } from './identity.entity.js';
import { OidcFlow } from './oidc-flow.entity.js';
import { UsedIdToken } from './used-id-token.entity.js';


export interface LinkedIdentity extends ProvenIdentity {
  userId: string;
  linkedAt: Date;
  lastUsedAt: Date | null;
}

export interface NewFlow {
  stateHash: string;
  provider: string;
  codeVerifier: string;
  nonce: string;
  returnTo: string;
  /** The account of a link flow; null for a sign-in. */
  userId: string | null;
  /** The S256 challenge of the frontend that started it, if it gave one. */
  clientChallenge: string | null;
  ttlSeconds: number;
}

export type TakenFlow = Omit<NewFlow, 'stateHash' | 'ttlSeconds'>;

/** Why a link was refused: the identity is another account's, or the account has one of this provider. */
export type LinkRefusal = 'identity-taken' | 'provider-taken';

/** The `identities`, `oidc_flows`, `identity_tickets` and `used_id_tokens` tables. */
export class IdentityRepository {
  private readonly sql: Record<'takeFlow' | 'takeTicket' | 'useIdToken' | 'link' | 'signIn', string>;
  private readonly columns: string;

  constructor(private readonly db: Database) {
    const f = db.names(OidcFlow);
    const t = db.names(IdentityTicket);
    const u = db.names(UsedIdToken);
    const i = db.names(ExternalIdentity);
    this.columns = `${i.provider} as provider, ${i.issuer} as issuer, ${i.subject} as subject, ${i.email} as email, ${i.name} as name,
                    ${i.user} as "userId", ${i.linkedAt} as "linkedAt", ${i.lastUsedAt} as "lastUsedAt"`;
    this.sql = {
      // Delete-returning: of concurrent uses of one state (or ticket) exactly one gets it, on any instance.
      takeFlow: `delete from ${f.table} where ${f.stateHash} = $1 and ${f.provider} = $2 and ${f.expiresAt} > now()
                 returning ${f.provider} as provider, ${f.codeVerifier} as "codeVerifier", ${f.nonce} as nonce, ${f.returnTo} as "returnTo",
                           ${f.user} as "userId", ${f.clientChallenge} as "clientChallenge"`,
      // Taken only by the account and the frontend it is bound to: a wrong verifier leaves it in place.
      takeTicket: `delete from ${t.table} where ${t.tokenHash} = $1 and ${t.kind} = $2 and ${t.user} is not distinct from $3
                     and ${t.clientChallenge} is not distinct from $4 and ${t.expiresAt} > now()
                   returning ${t.provider} as provider, ${t.issuer} as issuer, ${t.subject} as subject, ${t.email} as email, ${t.name} as name`,
      useIdToken: `insert into ${u.table} (${u.tokenHash}, ${u.expiresAt}) values ($1, $2) on conflict do nothing returning 1 as ok`,
      // No error inside the caller's transaction: a conflict on either unique key inserts nothing.
      link: `insert into ${i.table} (${i.id}, ${i.user}, ${i.provider}, ${i.issuer}, ${i.subject}, ${i.email}, ${i.name}, ${i.lastUsedAt})
             values ($1, $2, $3, $4, $5, $6, $7, $8) on conflict do nothing returning ${this.columns}`,
      // A sign-in by a linked identity: its account, and what the provider says of it now.
      signIn: `update ${i.table} set ${i.lastUsedAt} = now(), ${i.email} = $4, ${i.name} = $5
               where ${i.provider} = $1 and ${i.issuer} = $2 and ${i.subject} = $3 returning ${i.user} as "userId"`,
    };
  }

  async addFlow(flow: NewFlow): Promise<void> {
    const expiresAt = new Date(Date.now() + flow.ttlSeconds * 1000);
    await this.db.em().insert(OidcFlow, {
      stateHash: flow.stateHash,
      provider: flow.provider,
      codeVerifier: flow.codeVerifier,
      nonce: flow.nonce,
      returnTo: flow.returnTo,
      user: flow.userId,
      clientChallenge: flow.clientChallenge,
      expiresAt,
    });
  }

  /** The live flow of this state at this provider, used up. */
  takeFlow(stateHash: string, provider: string): Promise<TakenFlow | undefined> {
    return this.db.one<TakenFlow>(this.sql.takeFlow, [stateHash, provider]);
  }

  async addTicket(tokenHash: string, kind: 'result' | 'link', identity: ProvenIdentity, userId: string | null, ttlSeconds: number, clientChallenge: string | null = null): Promise<void> {
    await this.db.em().insert(IdentityTicket, {
      tokenHash,
      kind,
      provider: identity.provider,
      issuer: identity.issuer,
      subject: identity.subject,
      email: identity.email,
      name: identity.name,
      user: userId,
      clientChallenge,
      expiresAt: new Date(Date.now() + ttlSeconds * 1000),
    });
  }

  /**
   * The live ticket of this token, of this kind, for this account (null: for nobody in particular)
   * and this frontend's challenge (null: none was given), used up.
   */
  takeTicket(tokenHash: string, kind: 'result' | 'link', userId: string | null, clientChallenge: string | null = null): Promise<ProvenIdentity | undefined> {
    return this.db.one<ProvenIdentity>(this.sql.takeTicket, [tokenHash, kind, userId, clientChallenge]);
  }

  /** Whether a live ticket of this token and kind exists (not taken). */
  async hasTicket(tokenHash: string, kind: 'result' | 'link'): Promise<boolean> {
    return (await this.db.em().count(IdentityTicket, { tokenHash, kind, expiresAt: { $gt: new Date() } })) > 0;
  }

  /** Records an ID token's first use; false when it was used before. */
  async useIdToken(tokenHash: string, expiresAt: Date): Promise<boolean> {
    return Boolean(await this.db.one(this.sql.useIdToken, [tokenHash, expiresAt]));
  }

  /** The account of a linked identity, noting the sign-in and the provider's current email and name. */
  async signIn(identity: ProvenIdentity): Promise<string | undefined> {
    const row = await this.db.one<{ userId: string }>(this.sql.signIn, [identity.provider, identity.issuer, identity.subject, identity.email, identity.name]);
    return row?.userId;
  }

  /** Links the identity to the account; the refusal when either unique key is taken. */
  async link(userId: string, identity: ProvenIdentity, used: boolean): Promise<LinkedIdentity | LinkRefusal> {
    const { provider, issuer, subject, email, name } = identity;
    const row = await this.db.one<LinkedIdentity>(this.sql.link, [randomUUID(), userId, provider, issuer, subject, email, name, used ? new Date() : null]);
    if (row) return row;
    const taken = await this.db.em().count(ExternalIdentity, { provider, issuer, subject });
    return taken > 0 ? 'identity-taken' : 'provider-taken';
  }

  async listFor(userId: string): Promise<LinkedIdentity[]> {
    return this.listForUsers([userId]);
  }

  /** The identities of several accounts, oldest link first, in one query. */
  async listForUsers(userIds: string[]): Promise<LinkedIdentity[]> {
    if (userIds.length === 0) return [];
    const i = this.db.names(ExternalIdentity);
    return this.db.rows<LinkedIdentity>(`select ${this.columns} from ${i.table} where ${i.user} = any($1::uuid[]) order by ${i.linkedAt}, ${i.id}`, [userIds]);
  }

  /** Unlinks the account's identity at this provider; what was unlinked, if any. */
  async unlink(userId: string, provider: string): Promise<ProvenIdentity | undefined> {
    const i = this.db.names(ExternalIdentity);
    return this.db.one<ProvenIdentity>(
      `delete from ${i.table} where ${i.user} = $1 and ${i.provider} = $2
       returning ${i.provider} as provider, ${i.issuer} as issuer, ${i.subject} as subject, ${i.email} as email, ${i.name} as name`,
      [userId, provider],
    );
  }

  /** Ends the account's link flows and the results waiting for it. */
  async endPendingOf(userId: string): Promise<void> {
    const em = this.db.em();
    await em.nativeDelete(OidcFlow, { user: userId });
    await em.nativeDelete(IdentityTicket, { user: userId });
  }

  /** Expired flows, tickets and used ID tokens. */
  async sweepExpired(): Promise<Record<string, number>> {
    const em = this.db.em();
    const now = new Date();
    return {
      oidcFlows: await em.nativeDelete(OidcFlow, { expiresAt: { $lt: now } }),
      identityTickets: await em.nativeDelete(IdentityTicket, { expiresAt: { $lt: now } }),
      usedIdTokens: await em.nativeDelete(UsedIdToken, { expiresAt: { $lt: now } }),
    };
  }
}
