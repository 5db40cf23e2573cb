// Writes the SDL that the resolvers describe to schema/schema.graphql, and the subgraph SDL a gateway
// composes (what `_service { sdl }` answers) to schema/subgraph.graphql (`npm run schema:emit`).
import 'reflect-metadata';
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { printSubgraph } from './federation.js';
import { buildAppSchema, printAppSchema } from './schema.js';

const folder = process.argv[2] ?? fileURLToPath(new URL('../../../schema/', import.meta.url));
const schema = await buildAppSchema();
await writeFile(`${folder}/schema.graphql`, printAppSchema(schema));
await writeFile(`${folder}/subgraph.graphql`, await printSubgraph(schema));
process.stdout.write(`GraphQL schema and subgraph SDL written to ${folder}\n`);
