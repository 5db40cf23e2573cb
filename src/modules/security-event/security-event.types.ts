import { DateTimeResolver } from 'graphql-scalars';
import { Field, ID, ObjectType, registerEnumType } from 'type-graphql';
import { connectionOf, type Connection } from '../../graphql/connection.js';
import { SecurityEventType, SignInMethod } from './security-event-type.js';

registerEnumType(SecurityEventType, { name: 'SecurityEventType', description: 'What happened to the account' });
registerEnumType(SignInMethod, { name: 'SignInMethod', description: 'How a sign-in was attempted' });

@ObjectType('SecurityEvent', { description: 'Something that happened to the account: a sign-in, a code sent, a change' })
export class SecurityEventObject {
  @Field(() => ID)
  id!: string;

  @Field(() => SecurityEventType)
  type!: SecurityEventType;

  @Field(() => SignInMethod, { nullable: true, description: 'On sign-ins' })
  method!: SignInMethod | null;

  @Field(() => String, { nullable: true, description: "The external identity provider's id: on OIDC sign-ins, and on IDENTITY_LINKED and IDENTITY_UNLINKED" })
  provider!: string | null;

  @Field(() => DateTimeResolver)
  at!: Date;

  @Field(() => String, { nullable: true })
  ip!: string | null;

  @Field(() => String, { nullable: true })
  userAgent!: string | null;

  @Field(() => ID, { nullable: true, description: 'The session the event is about: the one created, ended, or acting' })
  sessionId!: string | null;

  @Field(() => String, { nullable: true, description: 'E.164 with all digits but the last four masked' })
  phoneMasked!: string | null;
}

export const SecurityEventConnectionType = connectionOf('SecurityEvent', SecurityEventObject, "The signed-in user's security events, newest first");
export type SecurityEventConnectionType = Connection<SecurityEventObject>;
