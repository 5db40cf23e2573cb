import { DateTimeResolver } from 'graphql-scalars';
import { Field, ID, ObjectType } from 'type-graphql';

@ObjectType('User', { description: 'An account. Secrets (password hash, tokens) have no field here by construction.' })
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

  @Field(() => DateTimeResolver)
  createdAt!: Date;

  @Field(() => DateTimeResolver, { nullable: true })
  lastLoginAt!: Date | null;
}
