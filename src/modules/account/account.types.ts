import { DateTimeResolver } from 'graphql-scalars';
import { Directive, Field, ID, InputType, ObjectType, registerEnumType } from 'type-graphql';
import { Role } from './role.js';

registerEnumType(Role, { name: 'Role', description: 'What an account may do beyond its own data' });

@ObjectType('User', { description: 'An account. Secrets (password hash, tokens) have no field here by construction.' })
// An entity of the product's graph: other subgraphs refer to users by id (a meeting's host).
@Directive('@key(fields: "id")')
export class UserType {
  @Field(() => ID)
  id!: string;

  @Field({ description: 'E.164' })
  phone!: string;

  @Field()
  nickname!: string;

  @Field(() => String, { nullable: true, description: 'Absolute path under /api/v1/avatars/; changes when the avatar changes' })
  avatarUrl!: string | null;

  @Field()
  hasPassword!: boolean;

  @Field(() => Role, { description: 'USER, or SUPPORT or ADMIN for operators' })
  role!: Role;

  @Field(() => String, { nullable: true, description: "The language the account chose for its SMS: zh-CN or en; null until chosen (the request's Accept-Language, then the phone's region, decide)" })
  locale!: string | null;

  @Field(() => DateTimeResolver)
  createdAt!: Date;

  @Field(() => DateTimeResolver, { nullable: true })
  lastLoginAt!: Date | null;
}

@InputType('UpdateProfileInput', { description: 'At least one of nickname and locale' })
export class UpdateProfileInputType {
  @Field(() => String, { nullable: true, description: 'Left as it is when absent' })
  nickname?: string | null;

  @Field(() => String, { nullable: true, description: 'zh-CN or en; null forgets the choice; left as it is when absent' })
  locale?: string | null;
}

@InputType('ChangePasswordInput')
export class ChangePasswordInputType {
  @Field(() => String, { nullable: true, description: 'Required when the account has a password' })
  currentPassword?: string | null;

  @Field()
  newPassword!: string;
}
