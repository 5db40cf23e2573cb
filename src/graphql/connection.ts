import { Field, ObjectType, type ClassType } from 'type-graphql';

@ObjectType('PageInfo', { description: 'Relay cursor pagination' })
class PageInfoType {
  @Field()
  hasNextPage!: boolean;

  @Field(() => String, { nullable: true })
  endCursor!: string | null;
}

export interface Connection<T> {
  edges: { cursor: string; node: T }[];
  pageInfo: PageInfoType;
}

/**
 * The Relay connection type `<name>Connection` (with its `<name>Edge`) of `node`: the shape of every
 * list of the schema, newest first, paged by shared/pagination.ts.
 */
export function connectionOf<T extends object>(name: string, node: ClassType<T>, description: string): ClassType<Connection<T>> {
  @ObjectType(`${name}Edge`)
  class Edge {
    @Field()
    cursor!: string;

    @Field(() => node)
    node!: T;
  }

  @ObjectType(`${name}Connection`, { description })
  class ConnectionType {
    @Field(() => [Edge])
    edges!: Edge[];

    @Field(() => PageInfoType)
    pageInfo!: PageInfoType;
  }
  return ConnectionType;
}
