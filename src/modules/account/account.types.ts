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

  @Field(() => DateTimeResolver)
  createdAt!: Date;

  @Field(() => DateTimeResolver, { nullable: true })
  lastLoginAt!: Date | null;
}

@InputType('UpdateProfileInput')
export class UpdateProfileInputType {
  @Field()
  nickname!: string;
}

@InputType('ChangePasswordInput')
export class ChangePasswordInputType {
  @Field(() => String, { nullable: true, description: 'Required when the account has a password' })
  currentPassword?: string | null;

  @Field()
  newPassword!: string;
}
