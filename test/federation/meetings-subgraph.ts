// A second subgraph of the product's graph, kept in the tests: the meetings service as another team
// would write it, whose `Meeting.host` is a `User` of this service. It only names the account (its
// id); the gateway asks this service for the rest, through `_entities`.

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
