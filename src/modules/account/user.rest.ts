import type { UserJson } from '../../openapi/shapes.js';
import type { UserView } from './user.view.js';

/** Plain JSON for REST: ISO-8601 timestamps. */
export function userToJson(user: UserView): UserJson {
  return {
    id: user.id,
    phone: user.phone,
    nickname: user.nickname,
    avatarUrl: user.avatarUrl,
    hasPassword: user.hasPassword,
    role: user.role,
    locale: user.locale,
    createdAt: user.createdAt.toISOString(),
    lastLoginAt: user.lastLoginAt?.toISOString() ?? null,
  };
}
