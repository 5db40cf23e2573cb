// Writes the SDL that the resolvers describe to schema/schema.graphql (`npm run schema:emit`).
import 'reflect-metadata';
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { buildAppSchema, printAppSchema } from './schema.js';

const target = process.argv[2] ?? fileURLToPath(new URL('../../../schema/schema.graphql', import.meta.url));
await writeFile(target, printAppSchema(await buildAppSchema()));
process.stdout.write(`GraphQL schema written to ${target}\n`);
