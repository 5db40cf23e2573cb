import { DateTimeResolver } from 'graphql-scalars';
import { JsonScalar } from '../../graphql/json-scalar.js';
import { Field, ID, ObjectType } from 'type-graphql';

@ObjectType('Passkey', { description: 'A passkey (WebAuthn credential) of the signed-in user' })
export class PasskeyType {
  @Field(() => ID)
  id!: string;

  @Field({ description: 'Trimmed, 1-64 characters; "Passkey <date added>" until renamed' })
  name!: string;

  @Field(() => DateTimeResolver)
  createdAt!: Date;

  @Field(() => DateTimeResolver, { nullable: true, description: 'The last sign-in with it; null before the first' })
  lastUsedAt!: Date | null;

  @Field({ description: 'Whether the authenticator says the key is backed up (synced to other devices)' })
  backedUp!: boolean;
}

@ObjectType('PasskeyLoginOptions', { description: 'What navigator.credentials.get() needs, and the challenge to name in loginWithPasskey' })
export class PasskeyLoginOptionsType {
  @Field({ description: 'Single use, valid 5 minutes' })
  challengeId!: string;

  @Field(() => JsonScalar, { description: 'PublicKeyCredentialRequestOptionsJSON (empty allowCredentials: any passkey of this service)' })
  options!: unknown;
}
