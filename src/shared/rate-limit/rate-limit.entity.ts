import { Entity, Index, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';

/** Table `rate_limits`: one fixed-window counter per key, shared by every instance. */
@Entity({ tableName: 'rate_limits' })
export class RateLimit {
  @PrimaryKey({ type: 'string', length: 200 })
  key!: string;

  @Property({ type: 'integer' })
  count!: number;

  /** The janitor deletes expired windows by this column. */
  @Property({ type: 'datetime' })
  @Index({ name: 'rate_limits_reset_at_idx' })
  resetAt!: Date;
}
