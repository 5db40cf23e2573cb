import { DateTimeResolver, JSONObjectResolver } from 'graphql-scalars';
import { Field, ID, Int, ObjectType, registerEnumType } from 'type-graphql';
import { UserType } from '../account/account.types.js';
import { AuditAction } from '../audit/audit-action.js';
import { connectionOf, type Connection } from '../../graphql/connection.js';
import { AccountStatus } from './account-status.js';

registerEnumType(AccountStatus, { name: 'AccountStatus', description: 'Whether an operator has blocked the account' });
registerEnumType(AuditAction, { name: 'AuditAction', description: 'What an operator did' });

@ObjectType('AdminUser', { description: 'An account as operators (SUPPORT, ADMIN) see it' })
export class AdminUserType extends UserType {
  @Field(() => AccountStatus)
  status!: AccountStatus;

  @Field(() => DateTimeResolver, { nullable: true })
  blockedAt!: Date | null;

  @Field(() => String, { nullable: true, description: "The operator's reason, while blocked" })
  blockedReason!: string | null;

  @Field(() => Int, { description: 'Live sessions' })
  activeSessions!: number;
}

export const AdminUserConnectionType = connectionOf('AdminUser', AdminUserType, 'Accounts found by an operator, newest first');
export type AdminUserConnectionType = Connection<AdminUserType>;

@ObjectType('AuditEntry', { description: 'An operator action: who, what, on whom, when' })
export class AuditEntryType {
  @Field(() => ID)
  id!: string;

  @Field(() => DateTimeResolver)
  at!: Date;

  @Field(() => ID, { nullable: true, description: "The operator's account; null for the command-line tool" })
  actorId!: string | null;

  @Field(() => AuditAction)
  action!: AuditAction;

  @Field(() => ID, { nullable: true, description: 'The account acted on' })
  targetUserId!: string | null;

  @Field(() => JSONObjectResolver, { description: "The action's own fields (a block's reason, a role change's from and to, what was read) and where the operator acted from (ip, userAgent, requestId)" })
  detail!: Record<string, unknown>;
}

export const AuditEntryConnectionType = connectionOf('AuditEntry', AuditEntryType, 'The audit log, newest first');
export type AuditEntryConnectionType = Connection<AuditEntryType>;
