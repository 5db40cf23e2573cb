import { DateTimeResolver } from 'graphql-scalars';
import { Field, Int, ObjectType, registerEnumType } from 'type-graphql';
import { UserType } from '../account/account.types.js';
import { AccountStatus } from './admin.service.js';

registerEnumType(AccountStatus, { name: 'AccountStatus', description: 'Whether an operator has blocked the account' });

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
