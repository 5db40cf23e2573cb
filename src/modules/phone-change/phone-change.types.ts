import { DateTimeResolver } from 'graphql-scalars';
import { Field, ID, ObjectType, registerEnumType } from 'type-graphql';
import { PhoneChangeStatus } from './phone-change.entity.js';

registerEnumType(PhoneChangeStatus, {
  name: 'PhoneChangeStatus',
  description: 'Where a change of the phone number stands',
  valuesConfig: {
    PENDING: { description: 'Started: waiting for its proofs (the new phone, the account)' },
    WAITING: { description: 'The new phone proven without an account proof: applies at appliesAt unless cancelled' },
    APPLIED: { description: 'Done: the account has the new number' },
    CANCELLED: { description: 'Cancelled, replaced, or refused when it was to apply' },
  },
});

@ObjectType('PhoneChange', { description: "A change of the signed-in user's phone number" })
export class PhoneChangeType {
  @Field(() => ID)
  id!: string;

  @Field({ description: 'The new number, E.164' })
  phone!: string;

  @Field(() => PhoneChangeStatus)
  status!: PhoneChangeStatus;

  @Field({ description: 'Whether the code sent to the new number was given' })
  newPhoneProven!: boolean;

  @Field({ description: 'Whether the account was proven within the last 10 minutes (or, for APPLIED, was)' })
  accountProven!: boolean;

  @Field(() => DateTimeResolver, { nullable: true, description: 'For WAITING: when it applies unless cancelled' })
  appliesAt!: Date | null;

  @Field(() => DateTimeResolver)
  createdAt!: Date;
}
