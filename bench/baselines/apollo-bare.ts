// Baseline for { me { id phone nickname } }: a bare Apollo Server 5 (Express 5 integration) with a
// schema-first schema whose resolver verifies the JWT and runs the service's session-check SQL.
import { ApolloServer } from '@apollo/server';
import { expressMiddleware } from '@as-integrations/express5';
import express from 'express';
import { GraphQLError } from 'graphql';
import { liveUser, port } from './common.js';

interface Context {
  authorization?: string;
}

const typeDefs = `#graphql
  type User {
    id: ID!
    phone: String!
    nickname: String!
  }
  type Query {
    me: User
  }
`;

const resolvers = {
  Query: {
    me: async (_parent: unknown, _args: unknown, { authorization }: Context) => {
      const user = await liveUser(authorization);
      if (!user) throw new GraphQLError('A valid access token is required', { extensions: { code: 'UNAUTHENTICATED' } });
      return user;
    },
  },
};

const apollo = new ApolloServer<Context>({ typeDefs, resolvers });
await apollo.start();
const app = express();
app.get('/healthz', (_req, res) => {
  res.json({ status: 'ok' });
});
app.use('/graphql', express.json(), expressMiddleware(apollo, { context: async ({ req }) => ({ authorization: req.get('authorization') }) }));
app.listen(port, '127.0.0.1');
