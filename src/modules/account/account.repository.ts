import { randomUUID } from 'node:crypto';
import { LockMode, raw } from '@mikro-orm/core';
import type { Database } from '../../db/database.js';
import type { Locale } from '../../shared/i18n/locale.js';
import type { Role } from './role.js';
import { User } from './user.entity.js';
import type { UserFields } from './user.view.js';

/** What the operators' search looks for: any of the id, phone prefixes and nickname, within the filters. */
export interface UserSearch {
  id?: string;
  /** E.164 prefixes. */
  phonePrefixes: string[];
  /** A case-insensitive substring. */
  nickname?: string;
  blocked?: boolean;
  role?: Role;
}

/** Where a page of the search ended: the last account's creation time (to the microsecond, as text) and id. */
export interface SearchPosition {
  createdAt: string;
  id: string;
}

export interface NewUser {
  phone: string;
  nickname: string;
  passwordHash: string | null;
}

/** The `users` table: no other file reads or writes it, but for the session check's join (`userViewSource`). */
export class AccountRepository {
  private readonly recordSignInSql: string;
  /** Prepared reads: the accounts a gateway's references name, an account's sign-in activity. */
  private readonly byIdsSql: string;
  private readonly activitySql: string;

  constructor(private readonly db: Database) {
    const u = db.names(User);
    const view = userViewSource(db, 'u');
    this.recordSignInSql = `update ${view.from} set ${u.loginCount} = u.${u.loginCount} + 1, ${u.lastLoginAt} = now()
                             where ${view.id} = $1 returning ${view.columns}, not (${view.active}) as blocked`;
    this.byIdsSql = `select ${view.columns} from ${view.from} where ${view.id} = any($1::uuid[])`;
    this.activitySql = `select ${u.loginCount} as "loginCount", ${u.lastLoginAt} as "lastLoginAt", ${u.createdAt} as "memberSince" from ${u.table} where ${u.id} = $1`;
  }

  findByPhone(phone: string): Promise<User | null> {
    return this.db.em().findOne(User, { phone });
  }

  /** The accounts of `ids` that exist, in one prepared query (a gateway's references to many users). */
  findManyById(ids: readonly string[]): Promise<UserFields[]> {
    return ids.length === 0 ? Promise.resolve([]) : this.db.rows<UserFields>(this.byIdsSql, [[...ids]], 'users_by_ids');
  }

  /** How often and when the account signed in, and since when it exists; undefined when it does not. */
  async activity(id: string): Promise<{ loginCount: number; lastLoginAt: Date | null; memberSince: Date } | undefined> {
    // Timestamps come as the database writes them (the pool parses no dates).
    const row = await this.db.one<{ loginCount: number; lastLoginAt: Date | string | null; memberSince: Date | string }>(this.activitySql, [id], 'user_activity');
    return row && { loginCount: row.loginCount, lastLoginAt: row.lastLoginAt === null ? null : new Date(row.lastLoginAt), memberSince: new Date(row.memberSince) };
  }

  findById(id: string): Promise<User | null> {
    return this.db.em().findOne(User, { id });
  }

  /** Inserts the account unless the phone is taken, in one statement: a concurrent sign-up of the same phone gets `undefined`. */
  async createIfAbsent(user: NewUser): Promise<User | undefined> {
    const [created] = await this.db
      .em()
      .qb(User)
      .insert({ id: randomUUID(), ...user })
      .onConflict('phone')
      .ignore()
      .returning('*')
      .execute<User[]>('all', true);
    return created;
  }

  /** Sets the role; the row as it was before, `undefined` without the account. The row stays locked until the transaction ends. */
  setRole(id: string, role: Role): Promise<{ previous: Role; user: User } | undefined> {
    return this.changeLocked(id, (user) => {
      const previous = user.role;
      user.role = role;
      return { previous, user };
    });
  }

  /**
   * Sets or clears the block (a block of a blocked account keeps its time and takes the new reason);
   * the row as it is now and whether it was blocked before, `undefined` without the account. The
   * row stays locked until the transaction ends.
   */
  setBlock(id: string, block: { reason: string } | null): Promise<{ user: User; wasBlocked: boolean } | undefined> {
    return this.changeLocked(id, (user) => {
      const wasBlocked = user.blockedAt !== null;
      user.blockedAt = block ? (user.blockedAt ?? new Date()) : null;
      user.blockedReason = block?.reason ?? null;
      return { user, wasBlocked };
    });
  }

  /**
   * The operators' search, newest first, at most `limit` from after `after`. Each way of matching is
   * its own branch, answered by its own index (see the User entity) and limited on its own; the
   * union of the branches is then ordered and cut. Without a text, every account (filtered).
   */
  async search(search: UserSearch, after: SearchPosition | undefined, limit: number): Promise<{ user: User; position: SearchPosition }[]> {
    const u = this.db.names(User);
    const values: unknown[] = [];
    const param = (value: unknown) => `$${values.push(value)}`;
    const filters: string[] = [];
    if (search.blocked !== undefined) filters.push(`${u.blockedAt} is ${search.blocked ? 'not ' : ''}null`);
    if (search.role) filters.push(`${u.role} = ${param(search.role)}`);
    if (after) filters.push(`(${u.createdAt}, ${u.id}) < (${param(after.createdAt)}::timestamptz, ${param(after.id)}::uuid)`);
    const order = `order by ${u.createdAt} desc, ${u.id} desc limit ${param(limit)}`;
    const branch = (match: string | undefined) => {
      const where = [...(match ? [match] : []), ...filters];
      return `(select * from ${u.table}${where.length > 0 ? ` where ${where.join(' and ')}` : ''} ${order})`;
    };
    const branches: string[] = [];
    const text = search.id !== undefined || search.phonePrefixes.length > 0 || search.nickname !== undefined;
    if (!text) branches.push(branch(undefined));
    if (search.id) branches.push(branch(`${u.id} = ${param(search.id)}::uuid`));
    for (const prefix of search.phonePrefixes) branches.push(branch(`${u.phone} like ${param(`${likeEscape(prefix)}%`)}`));
    if (search.nickname !== undefined) {
      const contains = `${u.nickname} ilike ${param(`%${likeEscape(search.nickname)}%`)}`;
      // Under three characters trigrams find nothing: the nickname's own pieces of that length do.
      const short = [...search.nickname].length < 3 ? `nickname_grams(${u.nickname}) @> array[lower(${param(search.nickname)})] and ` : '';
      branches.push(branch(short + contains));
    }
    if (branches.length === 0) return [];
    const at = `to_char(${u.createdAt} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
    const rows = await this.db.rows<Record<string, unknown> & { position_at: string }>(
      `select *, ${at} as position_at from (${branches.join(' union ')}) found ${order}`,
      values,
    );
    const em = this.db.em();
    return rows.map(({ position_at, ...row }) => {
      const user = em.map(User, row);
      return { user, position: { createdAt: position_at, id: user.id } };
    });
  }

  /** The accounts holding one of `roles`, oldest first. */
  withRoles(roles: Role[]): Promise<User[]> {
    return this.db.em().find(User, { role: { $in: roles } }, { orderBy: { createdAt: 'asc', id: 'asc' } });
  }

  /** Counts a sign-in in one statement (concurrent sign-ins each count). */
  /**
   * Counts a sign-in and returns the account's view and block (one prepared statement: every sign-in
   * runs it); undefined when there is no such account.
   */
  recordSignIn(id: string): Promise<(UserFields & { blocked: boolean }) | undefined> {
    return this.db.one(this.recordSignInSql, [id], 'account_record_sign_in');
  }

  async setPasswordHash(id: string, passwordHash: string): Promise<void> {
    await this.db.em().nativeUpdate(User, { id }, { passwordHash, updatedAt: raw('now()') });
  }

  /** Sets what is given of the nickname and the locale (a null locale forgets it), in one statement. */
  async setProfile(id: string, profile: { nickname?: string; locale?: Locale | null }): Promise<User | undefined> {
    const changes: Partial<Pick<User, 'nickname' | 'locale'>> = {};
    if (profile.nickname !== undefined) changes.nickname = profile.nickname;
    if (profile.locale !== undefined) changes.locale = profile.locale;
    const [user] = await this.db
      .em()
      .qb(User)
      .update({ ...changes, updatedAt: raw('now()') })
      .where({ id })
      .returning('*')
      .execute<User[]>('all', true);
    return user;
  }

  /**
   * Gives the account a new phone number; the row as it is now and the number it had, `undefined`
   * without the account. The unique index on `phone` refuses a number another account holds (a
   * unique violation the caller's transaction ends with), so of two changes or a change and a
   * sign-up to one number, exactly one commits.
   */
  setPhone(id: string, phone: string): Promise<{ user: User; previous: string } | undefined> {
    return this.changeLocked(id, (user) => {
      const previous = user.phone;
      user.phone = phone;
      return { user, previous };
    });
  }

  /** Points the account at a new avatar; returns the key it replaces (the row is locked meanwhile), `undefined` without an account. */
  replaceAvatarKey(id: string, avatarKey: string): Promise<{ user: User; previousKey: string | null } | undefined> {
    return this.changeLocked(id, (user) => {
      const previousKey = user.avatarKey;
      user.avatarKey = avatarKey;
      return { user, previousKey };
    });
  }

  /**
   * Reads the account's row locked (until the caller's transaction ends, or this one's), lets
   * `change` set its fields and writes them; `undefined` without the account.
   */
  private changeLocked<T>(id: string, change: (user: User) => T): Promise<T | undefined> {
    return this.db.transaction(async () => {
      const em = this.db.em();
      const user = await em.findOne(User, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
      if (!user) return undefined;
      const result = change(user);
      await em.flush();
      return result;
    });
  }

  /**
   * Locks the account's row until the transaction ends; false when there is none. `delete` excludes
   * every other lock; `change` (for a change of the account or of what hangs off it) excludes the
   * other changes and a deletion, but not the key-share locks of rows inserted that point at it.
   */
  async lock(id: string, purpose: 'delete' | 'change'): Promise<boolean> {
    // Explicit SQL: a lock without loading an entity into the transaction's identity map.
    const u = this.db.names(User);
    const mode = purpose === 'delete' ? 'for update' : 'for no key update';
    return Boolean(await this.db.one(`select 1 as locked from ${u.table} where ${u.id} = $1 ${mode}`, [id]));
  }

  /** Deletes the account (its sessions, tokens and usage go with it by foreign key); returns its avatar key. */
  delete(id: string): Promise<{ avatarKey: string | null } | undefined> {
    return this.db.transaction(async () => {
      const em = this.db.em();
      // Locked from the read to the delete: an avatar swapped meanwhile would leave its file behind.
      const user = await em.findOne(User, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
      if (!user) return undefined;
      await em.remove(user).flush();
      return { avatarKey: user.avatarKey };
    });
  }
}

/**
 * `users` under `alias` and the UserView columns of it, for the one query outside this file that
 * reads the table: the per-request session check, which joins the user row to save a round trip
 * (and so sees a role change or a block on the very next request, on every instance). `active` is
 * the condition of an account that is not blocked.
 */
export function userViewSource(db: Database, alias: string): { from: string; id: string; columns: string; active: string } {
  const u = db.names(User);
  const column: Record<keyof UserFields, string> = {
    id: `${alias}.${u.id}`,
    phone: `${alias}.${u.phone}`,
    nickname: `${alias}.${u.nickname}`,
    avatarKey: `${alias}.${u.avatarKey}`,
    hasPassword: `${alias}.${u.passwordHash} is not null`,
    role: `${alias}.${u.role}`,
    locale: `${alias}.${u.locale}`,
    createdAt: `${alias}.${u.createdAt}`,
    lastLoginAt: `${alias}.${u.lastLoginAt}`,
  };
  const columns = Object.entries(column).map(([field, expression]) => `${expression} as "${field}"`);
  return { from: `${u.table} ${alias}`, id: column.id, columns: columns.join(', '), active: `${alias}.${u.blockedAt} is null` };
}

/**
 * `users` under `alias` and its sign-in activity columns (loginCount, lastLoginAt, memberSince): for
 * the one statement outside this file that reads them, the personal statistics (see StatsRepository).
 */
export function accountActivitySource(db: Database, alias: string): { from: string; id: string; columns: string } {
  const u = db.names(User);
  return {
    from: `${u.table} ${alias}`,
    id: `${alias}.${u.id}`,
    columns: `${alias}.${u.loginCount} as "loginCount", ${alias}.${u.lastLoginAt} as "lastLoginAt", ${alias}.${u.createdAt} as "memberSince"`,
  };
}

/** `text` matched literally by LIKE (its wildcards and the escape character escaped). */
function likeEscape(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}
