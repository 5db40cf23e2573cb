// Every link of README.md and docs/*.md leads somewhere a clone of the repository has: a file or
// directory of the repository (never above its root), a heading of that file (GitHub's anchors), or a
// page of a few well-known documentation sites.
import { describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { ROOT } from '../operability/support.js';
import { anchorsOf, documentation, linksOf } from './markdown.js';

/** The only sites a document may send a reader to: the specifications and manuals it cites. */
const EXTERNAL = ['https://www.postgresql.org/docs/', 'https://www.standardwebhooks.com/'];

const files = documentation();

function problemsOf(path: string, target: string): string[] {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) {
    return EXTERNAL.some((site) => target.startsWith(site)) ? [] : [`${path}: ${target} leaves the repository`];
  }
  const [file, anchor] = target.split('#', 2) as [string, string | undefined];
  const full = file === '' ? join(ROOT, path) : resolve(dirname(join(ROOT, path)), decodeURIComponent(file));
  const inside = relative(ROOT, full);
  if (inside.startsWith('..')) return [`${path}: ${target} points above the repository's root`];
  if (!existsSync(full)) return [`${path}: ${target} does not exist`];
  if (anchor === undefined) return [];
  if (!statSync(full).isFile() || !full.endsWith('.md')) return [`${path}: ${target} has an anchor on a file that is not Markdown`];
  return anchorsOf(readFileSync(full, 'utf8')).has(anchor) ? [] : [`${path}: ${target}: no heading has the anchor #${anchor}`];
}

describe('the links of README.md and docs/', () => {
  it('finds the documents and their links', () => {
    expect(files.map((f) => f.path)).toEqual(expect.arrayContaining(['README.md', 'docs/configuration.md', 'docs/api.md']));
    expect(files.flatMap((f) => linksOf(f.text)).length).toBeGreaterThan(50);
  });

  it.each(files.map((f) => [f.path, f] as const))('%s: every link leads to a file, directory or heading of the repository', (_path, file) => {
    expect(linksOf(file.text).flatMap((target) => problemsOf(file.path, target))).toEqual([]);
  });

  it('makes anchors as GitHub does', () => {
    const anchors = anchorsOf("# The product's graph (Apollo Federation 2)\n## Why: `reason` on `UNAUTHENTICATED`\n## Metrics\n## Metrics\n```sh\n# not a heading\n```\n");
    expect([...anchors]).toEqual(['the-products-graph-apollo-federation-2', 'why-reason-on-unauthenticated', 'metrics', 'metrics-1']);
  });

  it('names the contract in words: no link or path into ../shared, which a clone has not', () => {
    expect(files.filter((f) => f.text.includes('../shared') || f.text.includes('API.md')).map((f) => f.path)).toEqual([]);
  });
});
