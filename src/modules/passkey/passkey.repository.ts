import { randomUUID } from 'node:crypto';
import { raw } from '@mikro-orm/core';
import type { Database } from '../../db/database.js';
import { Passkey } from './passkey.entity.js';
import { WebAuthnChallenge } from './webauthn-challenge.entity.js';

export type ChallengePurpose = 'registration' | 'authentication';

export interface NewPasskey {
  userId: string;
  credentialId: string;
  publicKey: Uint8Array;
  counter: number;
  transports: string[];
  deviceType: string;
  backedUp: boolean;
  name: string;
}

/** What a sign-in needs of a passkey. */
export interface SignInPasskey {
  id: string;
  userId: string;
  credentialId: string;
  /** COSE_Key bytes. */
  publicKey: Buffer;
  counter: number;
}

/** The `passkeys` and `webauthn_challenges` tables. */
export class PasskeyRepository {
  private readonly sql: { takeSignIn: string; takeRegistration: string; advance: string; countsFor: string; countFor: string; exists: string };

  constructor(private readonly db: Database) {
    const c = db.names(WebAuthnChallenge);
    const p = db.names(Passkey);
    this.sql = {
      // Delete-returning: of concurrent uses of one challenge exactly one gets it, on any instance.
      // With the passkey the response names, in the one round trip a sign-in starts with (the
      // challenge is used up whether or not the passkey exists).
      takeSignIn: `with taken as (delete from ${c.table} where ${c.id} = $1 and ${c.purpose} = 'authentication' and ${c.user} is null and ${c.expiresAt} > now()
                                  returning ${c.challenge} as challenge)
                   select (select challenge from taken) as challenge, p.${p.id} as id, p.${p.user} as "userId",
                          p.${p.credentialId} as "credentialId", p.${p.publicKey} as "publicKey", p.${p.counter} as counter
                     from (select 1) as one left join ${p.table} p on p.${p.credentialId} = $2`,
      exists: `select 1 as ok from ${p.table} where ${p.id} = $1`,
      takeRegistration: `delete from ${c.table} where ${c.user} = $1 and ${c.purpose} = 'registration' and ${c.challenge} = $2 and ${c.expiresAt} > now()
                         returning 1 as ok`,
      // Conditional update: the counter only moves forward (or stays 0 for authenticators that keep
      // none), so of two sign-ins with the same counter value, a cloned key's included, one wins.
      advance: `update ${p.table} set ${p.counter} = $2, ${p.backedUp} = $3, ${p.lastUsedAt} = now()
                where ${p.id} = $1 and (${p.counter} < $2 or (${p.counter} = 0 and $2 = 0))
                returning 1 as ok`,
      // One grouped query for a page of accounts (the operators' search), from the user index.
      countsFor: `select ${p.user} as "userId", count(*)::int as n from ${p.table} where ${p.user} = any($1::uuid[]) group by ${p.user}`,
      // Prepared: a signed-in user's factors are read with its first screen.
      countFor: `select count(*)::int as n from ${p.table} where ${p.user} = $1`,
    };
  }

  async addChallenge(challenge: { userId: string | null; purpose: ChallengePurpose; challenge: string; ttlSeconds: number }): Promise<string> {
    const id = randomUUID();
    await this.db.em().insert(WebAuthnChallenge, {
      id,
      user: challenge.userId,
      purpose: challenge.purpose,
      challenge: challenge.challenge,
      expiresAt: raw(`now() + make_interval(secs => ${Math.trunc(challenge.ttlSeconds)})`),
    });
    return id;
  }

  /**
   * Uses up a live sign-in challenge and finds the passkey of `credentialId`: the challenge's value
   * (`undefined` when it was unknown, used or expired) and the passkey (`undefined` when none).
   */
  async takeSignInChallenge(id: string, credentialId: string): Promise<{ challenge?: string; passkey?: SignInPasskey }> {
    const row = await this.db.one<{ challenge: string | null; id: string | null; userId: string; credentialId: string; publicKey: Buffer; counter: string | number }>(
      this.sql.takeSignIn,
      [id, credentialId],
      'webauthn_take_sign_in',
    );
    const challenge = row?.challenge ?? undefined;
    if (!row?.id) return { challenge };
    return { challenge, passkey: { id: row.id, userId: row.userId, credentialId: row.credentialId, publicKey: row.publicKey, counter: Number(row.counter) } };
  }

  /** Whether the passkey is still registered. */
  async exists(id: string): Promise<boolean> {
    return Boolean(await this.db.one(this.sql.exists, [id]));
  }

  /** Uses up the user's live registration challenge of that value; whether there was one. */
  async takeRegistrationChallenge(userId: string, challenge: string): Promise<boolean> {
    return Boolean(await this.db.one(this.sql.takeRegistration, [userId, challenge], 'webauthn_take_registration'));
  }

  listFor(userId: string): Promise<Passkey[]> {
    return this.db.em().find(Passkey, { user: userId }, { orderBy: { createdAt: 'asc', id: 'asc' } });
  }

  async countFor(userId: string): Promise<number> {
    return (await this.db.one<{ n: number }>(this.sql.countFor, [userId], 'passkey_count_for'))?.n ?? 0;
  }

  /** Per account of `userIds` that has passkeys, how many. */
  async countsFor(userIds: string[]): Promise<Map<string, number>> {
    const rows = await this.db.rows<{ userId: string; n: number }>(this.sql.countsFor, [userIds]);
    return new Map(rows.map((row) => [row.userId, row.n]));
  }

  /** Inserts the passkey unless its credential id is registered already (`undefined` then), in one statement. */
  async addIfAbsent(passkey: NewPasskey): Promise<Passkey | undefined> {
    const { userId, publicKey, ...rest } = passkey;
    const [created] = await this.db
      .em()
      .qb(Passkey)
      .insert({ id: randomUUID(), user: userId, publicKey: Buffer.from(publicKey), ...rest })
      .onConflict('credentialId')
      .ignore()
      .returning('*')
      .execute<Passkey[]>('all', true);
    return created;
  }

  /** Records a sign-in with a counter that moved forward; false when it did not (see `advance`). */
  async advance(id: string, counter: number, backedUp: boolean): Promise<boolean> {
    return Boolean(await this.db.one(this.sql.advance, [id, counter, backedUp], 'passkey_advance'));
  }

  async rename(userId: string, id: string, name: string): Promise<Passkey | undefined> {
    const [renamed] = await this.db.em().qb(Passkey).update({ name }).where({ id, user: userId }).returning('*').execute<Passkey[]>('all', true);
    return renamed;
  }

  async delete(userId: string, id: string): Promise<boolean> {
    return (await this.db.em().nativeDelete(Passkey, { id, user: userId })) > 0;
  }

  /** The account's registration challenges (sign-in challenges belong to no account). */
  async deleteRegistrationChallengesOf(userId: string): Promise<void> {
    await this.db.em().nativeDelete(WebAuthnChallenge, { user: userId, purpose: 'registration' });
  }

  /** Challenges past their expiry. */
  async sweepExpired(): Promise<Record<string, number>> {
    return { webauthnChallenges: await this.db.em().nativeDelete(WebAuthnChallenge, { expiresAt: { $lt: new Date() } }) };
  }
}

/**
 * The number of passkeys of the user `userId` (an SQL expression), as a scalar subquery: for the one
 * statement outside this file that counts them, the second-factor status (see MfaRepository).
 */
export function passkeyCountOf(db: Database, userId: string): string {
  const p = db.names(Passkey);
  return `(select count(*)::int from ${p.table} where ${p.user} = ${userId})`;
}
