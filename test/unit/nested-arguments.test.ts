// The start-up check behind API.md 9.0's rule that every argument of a selection is checked before
// a mutation acts: a schema whose fields below the root take arguments without a parsing schema
// (ArgumentsParsedBy) does not build.
import 'reflect-metadata';
import { describe, expect, it } from '@jest/globals';
import { buildSchema as buildSdl } from 'graphql';
import { buildAppSchema } from '../../src/graphql/schema.js';
import { assertNestedArgumentsChecked } from '../../src/graphql/input-checks.js';

describe('assertNestedArgumentsChecked', () => {
  it('names every field below the root that takes arguments nothing parses', () => {
    const schema = buildSdl('type Query { me: User, users(first: Int): [User] } type User { id: ID, friends(first: Int): [User], posts(after: String): [String] }');
    expect(() => assertNestedArgumentsChecked(schema)).toThrow('User.friends, User.posts');
  });

  it("passes the service's own schema, whose only such field is AdminUser.securityEvents", async () => {
    const schema = await buildAppSchema();
    expect(schema.getType('AdminUser')).toBeDefined();
    expect(() => assertNestedArgumentsChecked(schema)).not.toThrow();
  });
});
