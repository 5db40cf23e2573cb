import { randomUUID } from 'node:crypto';
import type { Sql } from '../../db/sql.js';
import { USER_COLUMNS, toUserView, type UserRow, type UserView } from './user.view.js';

export interface UserWithSecret extends UserView {
  passwordHash: string | null;
}

export interface NewUser {
  phone: string;
  nickname: string;
  passwordHash: string | null;
}

/** Account records: lookups and creation shared by every flow that touches a user. */
export class AccountService {
  constructor(private readonly sql: Sql) {}

  async findByPhone(phone: string): Promise<UserWithSecret | undefined> {
    const row = await this.sql.one<UserRow & { password_hash: string | null }>(
      `select ${USER_COLUMNS}, u.password_hash from users u where u.phone = $1`,
      [phone],
      'user_by_phone',
    );
    return row && { ...toUserView(row), passwordHash: row.password_hash };
  }

  async findById(id: string): Promise<UserView | undefined> {
    const row = await this.sql.one<UserRow>(`select ${USER_COLUMNS} from users u where u.id = $1`, [id], 'user_by_id');
    return row && toUserView(row);
  }

  /** Inserts the account unless the phone is taken; `undefined` means another account has the phone. */
  async createIfAbsent(user: NewUser): Promise<UserView | undefined> {
    const row = await this.sql.one<UserRow>(
      `insert into users as u (id, phone, nickname, password_hash) values ($1, $2, $3, $4)
       on conflict (phone) do nothing
       returning ${USER_COLUMNS}`,
      [randomUUID(), user.phone, user.nickname, user.passwordHash],
    );
    return row && toUserView(row);
  }

  async setPasswordHash(userId: string, passwordHash: string): Promise<void> {
    await this.sql.rows('update users set password_hash = $2, updated_at = now() where id = $1', [userId, passwordHash]);
  }

  async recordLogin(userId: string): Promise<UserView> {
    const row = await this.sql.one<UserRow>(
      `update users u set last_login_at = now(), login_count = login_count + 1 where u.id = $1 returning ${USER_COLUMNS}`,
      [userId],
      'user_record_login',
    );
    return toUserView(row!);
  }
}
