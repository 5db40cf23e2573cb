import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';

// The module boundaries the README describes, read from the source: who may touch which table, and
// which way imports point.

const src = fileURLToPath(new URL('../../src', import.meta.url));
const files = (function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]));
})(src).filter((f) => f.endsWith('.ts'));
const text = new Map(files.map((f) => [f, readFileSync(f, 'utf8')]));
const rel = (f: string) => relative(src, f);

/** The files `file` imports, resolved to paths under src/. */
function importsOf(file: string): string[] {
  const specifiers = [...text.get(file)!.matchAll(/(?:^|\n)\s*(?:import|export)[^'"]*?from\s+'([^']+)'/g)].map((m) => m[1]!);
  return specifiers.filter((s) => s.startsWith('.')).map((s) => join(dirname(file), s).replace(/\.js$/, '.ts'));
}

const entities = files.filter((f) => f.endsWith('.entity.ts'));
/** Files that query tables: the repositories, and the counter store that keeps its windows in PostgreSQL. */
const isOwner = (f: string) => f.endsWith('.repository.ts') || rel(f) === 'shared/rate-limit/postgres-store.ts';

describe('module boundaries', () => {
  it('every table has one owner: an entity is used only inside its module (besides the ORM setup and entities relating to it)', () => {
    expect(entities.length).toBeGreaterThanOrEqual(9);
    const outside = entities.flatMap((entity) =>
      files
        .filter((f) => importsOf(f).includes(entity) && rel(f) !== 'db/orm.ts' && !f.endsWith('.entity.ts') && dirname(f) !== dirname(entity))
        .map((f) => `${rel(f)} -> ${rel(entity)}`),
    );
    expect(outside).toEqual([]);
  });

  it('only owners run queries, one per module: the EntityManager, explicit SQL and entity names stay in repositories', () => {
    const querying = files.filter((f) => /\bdb\.(em|rows|one|names)\(/.test(text.get(f)!));
    expect(querying.filter((f) => !isOwner(f)).map(rel)).toEqual([]);
    const perDirectory = new Map<string, string[]>();
    for (const f of querying) perDirectory.set(dirname(f), [...(perDirectory.get(dirname(f)) ?? []), rel(f)]);
    expect([...perDirectory.values()].filter((owners) => owners.length > 1)).toEqual([]);
  });

  it('no SQL names a table by hand outside the migrations: names come from entity metadata', () => {
    const tables = entities.map((f) => /tableName: '([a-z_]+)'/.exec(text.get(f)!)![1]!);
    const handWritten = files
      .filter((f) => !rel(f).startsWith('db/migrations/') && !f.endsWith('.entity.ts'))
      .flatMap((f) => tables.filter((t) => new RegExp(`\\b(from|into|update|join|table)\\s+"?${t}\\b`, 'i').test(text.get(f)!)).map((t) => `${rel(f)}: ${t}`));
    expect(handWritten).toEqual([]);
  });

  it('arrows point down: services import no transport, OpenAPI shape or composition root', () => {
    const services = files.filter((f) => f.endsWith('.service.ts') || f.endsWith('.repository.ts'));
    expect(services.length).toBeGreaterThan(5);
    const upward = services.flatMap((f) => {
      const bad = importsOf(f).filter((i) => /\/(openapi|graphql)\//.test(i) || rel(i) === 'services.ts' || /\.(routes|resolver|rest)\.ts$/.test(i));
      const express = /from '(express|@apollo\/server|type-graphql)'/.test(text.get(f)!) ? ['a transport package'] : [];
      return [...bad.map(rel), ...express].map((b) => `${rel(f)} -> ${b}`);
    });
    expect(upward).toEqual([]);
  });

  it('OpenTelemetry stays behind src/tracing.ts, which main imports only dynamically, so that tracing off loads none of it', () => {
    const otel = files.filter((f) => /['"](@opentelemetry\/|import-in-the-middle|require-in-the-middle)/.test(text.get(f)!)).map(rel);
    expect(otel).toEqual(['tracing.ts']);
    const tracing = join(src, 'tracing.ts');
    expect(files.filter((f) => importsOf(f).includes(tracing)).map(rel)).toEqual([]);
    expect(files.filter((f) => /import\(\s*'\.\/tracing\.js'\s*\)/.test(text.get(f)!)).map(rel)).toEqual(['main.ts']);
  });
});
