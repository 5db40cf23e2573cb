import { DateTimeResolver } from 'graphql-scalars';
import { Field, ID, ObjectType } from 'type-graphql';

@ObjectType('Identity', { description: "An external provider's identity linked to the account; its email and name are the provider's, shown only" })
export class IdentityType {
  @Field(() => ID, { description: "The provider's id (PublicConfig.identityProviders)" })
  provider!: string;

  @Field(() => String, { nullable: true })
  email!: string | null;

  @Field(() => String, { nullable: true })
  name!: string | null;

  @Field(() => DateTimeResolver)
  linkedAt!: Date;

  @Field(() => DateTimeResolver, { nullable: true, description: 'The last sign-in with it; null before the first' })
  lastUsedAt!: Date | null;
}
