import { DateTimeResolver } from 'graphql-scalars';
import { Field, Float, Int, ObjectType } from 'type-graphql';

@ObjectType('PeriodStats')
export class PeriodStatsType {
  @Field(() => Int, { description: 'Distinct meetings' }) meetings!: number;
  @Field(() => Int, { description: 'Whole minutes' }) minutes!: number;
}

@ObjectType('UserStats', { description: 'Personal statistics; meeting figures come from usage reports of the meeting service' })
export class UserStatsType {
  @Field(() => Int, { description: 'Successful sign-ins of any kind, registration included' }) loginCount!: number;
  @Field(() => DateTimeResolver, { nullable: true }) lastLoginAt!: Date | null;
  @Field(() => DateTimeResolver) memberSince!: Date;
  @Field(() => Int) daysSinceRegistration!: number;
  @Field(() => Int, { description: 'Live, unexpired sessions' }) activeSessions!: number;
  @Field(() => Int, { description: 'Distinct meetings the user hosted' }) meetingsHosted!: number;
  @Field(() => Int, { description: 'Distinct meetings the user joined as a participant' }) meetingsJoined!: number;
  @Field(() => Int, { description: 'Whole minutes, rounded down per report' }) totalMeetingMinutes!: number;
  @Field(() => Int) hostedMeetingMinutes!: number;
  @Field(() => Float, { description: 'totalMeetingMinutes over distinct meetings, 2 decimals' }) averageMeetingMinutes!: number;
  @Field(() => DateTimeResolver, { nullable: true, description: 'When the user last joined a meeting' }) lastMeetingAt!: Date | null;
  @Field(() => PeriodStatsType) last30Days!: PeriodStatsType;
}
