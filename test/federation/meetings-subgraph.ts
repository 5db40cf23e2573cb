// A second subgraph of the product's graph, kept in the tests: the meetings service as another team
// would write it, whose `Meeting.host` is a `User` of this service. It only names the account (its
// id); the gateway asks this service for the rest, through `_entities`.
import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginInlineTraceDisabled } from '@apollo/server/plugin/disabled';
import { startStandaloneServer } from '@apollo/server/standalone';
import { buildSubgraphSchema } from '@apollo/subgraph';
import { parse } from 'graphql';

/** The meetings subgraph's SDL: `User` is referenced by key only (`resolvable: false`). */
export const MEETINGS_SDL = `extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key"])

type Meeting @key(fields: "id") {
  id: ID!
  title: String!
  host: User!
}

type User @key(fields: "id", resolvable: false) {
  id: ID!
}

type Query {
  meeting(id: ID!): Meeting
}
`;

interface Meeting {
  id: string;
  title: string;
  hostId: string;
}

export interface MeetingsSubgraph {
  /** Its GraphQL endpoint, on loopback. */
  url: string;
  /** The meetings it knows; a test adds its own. */
  meetings: Map<string, Meeting>;
  /** The Authorization header of every request it received, in order (null when absent). */
  authorizations: (string | null)[];
  stop(): Promise<void>;
}

/** Starts the meetings subgraph (Apollo Server, `buildSubgraphSchema`) on a free loopback port. */
export async function startMeetingsSubgraph(): Promise<MeetingsSubgraph> {
  const meetings = new Map<string, Meeting>();
  const authorizations: (string | null)[] = [];
  const schema = buildSubgraphSchema([
    {
      typeDefs: parse(MEETINGS_SDL),
      resolvers: {
        Query: { meeting: (_: unknown, { id }: { id: string }) => meetings.get(id) ?? null },
        Meeting: {
          __resolveReference: ({ id }: { id: string }) => meetings.get(id) ?? null,
          host: (meeting: Meeting) => ({ __typename: 'User', id: meeting.hostId }),
        },
      },
    },
  ]);
  const server = new ApolloServer({ schema, plugins: [ApolloServerPluginInlineTraceDisabled()] });
  const { url } = await startStandaloneServer(server, {
    listen: { host: '127.0.0.1', port: 0 },
    context: async ({ req }) => {
      authorizations.push(req.headers.authorization ?? null);
      return {};
    },
  });
  return { url, meetings, authorizations, stop: () => server.stop() };
}
