// API.md 9.2: the subgraph composes with the product's other subgraphs. A real composer
// (@theguild/federation-composition) composes schema/subgraph.graphql with a meetings subgraph
// whose Meeting.host is a User of this service, and says why when it cannot.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { buildSchema, isNonNullType, type GraphQLObjectType } from 'graphql';
import { MEETINGS_SDL } from './meetings-subgraph.js';
import { composeProductGraph, dockerComposeSupergraph } from './product-graph.js';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const ACCOUNTS_SDL = read('schema/subgraph.graphql');
const compose = (meetingsSdl: string) =>
  composeProductGraph([
    { name: 'accounts', url: 'http://accounts.internal/graphql', sdl: ACCOUNTS_SDL },
    { name: 'meetings', url: 'http://meetings.internal/graphql', sdl: meetingsSdl },
  ]);

describe('composition of the product graph', () => {
  it("composes this service's subgraph with a meetings subgraph: Meeting.host is a User with its nickname and avatarUrl", () => {
    const supergraph = compose(MEETINGS_SDL);
    const schema = buildSchema(supergraph);
    const meeting = schema.getType('Meeting') as GraphQLObjectType;
    const user = schema.getType('User') as GraphQLObjectType;
    expect(String(meeting.getFields().host!.type)).toBe('User!');
    expect(String(user.getFields().nickname!.type)).toBe('String!');
    expect(String(user.getFields().avatarUrl!.type)).toBe('String');
    expect(isNonNullType(schema.getQueryType()!.getFields().me!.type)).toBe(true);
    expect(schema.getQueryType()!.getFields().meeting).toBeDefined();
    // Accounts resolves User by its key; meetings only refers to it.
    expect(supergraph).toContain('type User @join__type(graph: ACCOUNTS, key: "id") @join__type(graph: MEETINGS, key: "id", resolvable: false)');
    expect(supergraph).toMatch(/nickname: String! @join__field\(graph: ACCOUNTS\)/);
  });

  it("fails with the composer's own messages when the subgraphs disagree", () => {
    const clash = MEETINGS_SDL.replace('type User @key(fields: "id", resolvable: false) {\n  id: ID!', '$&\n  nickname: Int');
    expect(clash).not.toBe(MEETINGS_SDL);
    expect(() => compose(clash)).toThrow(
      'Type of field "User.nickname" is incompatible across subgraphs: it has type "String!" in subgraph "accounts" but type "Int" in subgraph "meetings" (FIELD_TYPE_MISMATCH)',
    );
    const unknownKey = MEETINGS_SDL.replace('type User @key(fields: "id", resolvable: false)', 'type User @key(fields: "email", resolvable: false)');
    expect(() => compose(unknownKey)).toThrow(/^composition failed:\n {2}- \[meetings\] On type "User", for @key\(fields: "email"\): Cannot query field "email" .* \(KEY_INVALID_FIELDS\)$/);
  });

  it("writes the docker-compose gateway's supergraph, gateway/supergraph.graphql, from the committed subgraph (npm run generate)", () => {
    expect(read('gateway/supergraph.graphql')).toBe(dockerComposeSupergraph(ACCOUNTS_SDL));
  });
});
