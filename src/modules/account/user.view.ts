/** The public face of an account: what both transports return. No secret can reach it. */
export interface UserView {
  id: string;
  phone: string;
  nickname: string;
  avatarUrl: string | null;
  hasPassword: boolean;
  createdAt: Date;
  lastLoginAt: Date | null;
}

/** Columns every user query selects, in the shape `toUserView` reads. */
export const USER_COLUMNS = `u.id, u.phone, u.nickname, u.avatar_key, u.password_hash is not null as has_password, u.created_at, u.last_login_at`;

/** Where avatars are served; the key changes whenever the avatar does. */
const AVATAR_PATH = '/api/v1/avatars/';

export interface UserRow {
  id: string;
  phone: string;
  nickname: string;
  avatar_key: string | null;
  has_password: boolean;
  // MikroORM's pg type parsers hand timestamps over as strings.
  created_at: Date | string;
  last_login_at: Date | string | null;
}

export function toUserView(row: UserRow): UserView {
  return {
    id: row.id,
    phone: row.phone,
    nickname: row.nickname,
    avatarUrl: row.avatar_key ? `${AVATAR_PATH}${row.avatar_key}` : null,
    hasPassword: row.has_password,
    createdAt: new Date(row.created_at),
    lastLoginAt: row.last_login_at === null ? null : new Date(row.last_login_at),
  };
}
