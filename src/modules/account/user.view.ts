import type { Uuid } from '../../shared/ids.js';
import type { Locale } from '../../shared/i18n/locale.js';
import type { Role } from './role.js';

/** The public face of an account: what both transports return. No secret can reach it. */
export interface UserView {
  /** As PostgreSQL prints a uuid: in lower case, the one spelling of an id past the edge. */
  id: Uuid;
  phone: string;
  nickname: string;
  avatarUrl: string | null;
  hasPassword: boolean;
  role: Role;
  /** The language the account chose (API.md 10.3), null until it chooses. */
  locale: Locale | null;
  createdAt: Date;
  lastLoginAt: Date | null;
}

/** Where avatars are served; the key changes whenever the avatar does. */
const AVATAR_PATH = '/api/v1/avatars/';

/** What a UserView is made of: a `User` entity's fields, or a row selected from `userViewSource` (account.repository.ts). */
export interface UserFields {
  id: string;
  phone: string;
  nickname: string;
  avatarKey: string | null;
  hasPassword: boolean;
  role: Role;
  locale: Locale | null;
  // Rows from explicit SQL carry timestamps as strings (MikroORM's pg type parsers).
  createdAt: Date | string;
  lastLoginAt: Date | string | null;
}

export function toUserView(fields: UserFields): UserView {
  return {
    id: fields.id as Uuid,
    phone: fields.phone,
    nickname: fields.nickname,
    avatarUrl: fields.avatarKey ? `${AVATAR_PATH}${fields.avatarKey}` : null,
    hasPassword: fields.hasPassword,
    role: fields.role,
    locale: fields.locale,
    createdAt: new Date(fields.createdAt),
    lastLoginAt: fields.lastLoginAt === null ? null : new Date(fields.lastLoginAt),
  };
}
