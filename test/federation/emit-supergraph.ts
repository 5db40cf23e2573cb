// `npm run supergraph:emit` (part of `npm run generate`), from the repository's root: composes
// schema/subgraph.graphql into gateway/supergraph.graphql, the supergraph of the docker-compose
// `gateway` profile. test/federation/composition.test.ts fails when the committed one differs.
import { readFileSync, writeFileSync } from 'node:fs';
import { dockerComposeSupergraph } from './product-graph.js';

writeFileSync('gateway/supergraph.graphql', dockerComposeSupergraph(readFileSync('schema/subgraph.graphql', 'utf8')));
process.stdout.write('supergraph written to gateway/supergraph.graphql\n');
