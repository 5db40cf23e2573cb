import { DateTimeResolver } from 'graphql-scalars';
import { Field, ID, ObjectType } from 'type-graphql';

@ObjectType('Session', { description: 'A signed-in device or client' })
export class SessionType {
  @Field(() => ID)
  id!: string;

  @Field(() => DateTimeResolver)
  createdAt!: Date;

  @Field(() => DateTimeResolver)
  lastUsedAt!: Date;

  @Field(() => String, { nullable: true })
  userAgent!: string | null;

  @Field(() => String, { nullable: true })
  ip!: string | null;

  @Field({ description: 'True for the session of the token that asks' })
  current!: boolean;
}
