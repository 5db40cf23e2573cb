// The repository's documentation as the docs tests read it (not a test file): README.md and docs/*.md,
// their fenced blocks, links and headings.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../operability/support.js';

export interface MarkdownFile {
  /** Relative to the repository's root: `README.md`, `docs/sign-in.md`. */
  path: string;
  text: string;
}

/** README.md, then docs/*.md in name order. */
export function documentation(): MarkdownFile[] {
  const docs = readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`);
  return ['README.md', ...docs].map((path) => ({ path, text: readFileSync(join(ROOT, path), 'utf8') }));
}

interface FencedBlock {
  file: string;
  /** The fence's info string: `sh runnable`, `js`, ... */
  info: string;
  body: string;
}

function fencedBlocks(file: MarkdownFile): FencedBlock[] {
  return [...file.text.matchAll(/^```([^\n`]*)\n([\s\S]*?)^```$/gm)].map((m) => ({ file: file.path, info: m[1]!.trim(), body: m[2]! }));
}

/** The shell blocks marked to run in CI against a started service: the fence says ```sh runnable. */
export function runnableBlocks(files = documentation()): FencedBlock[] {
  return files.flatMap(fencedBlocks).filter((b) => /^sh\s+runnable\b/.test(b.info));
}

/** The text outside fenced blocks and inline code spans (what a renderer treats as Markdown). */
function prose(text: string): string {
  return text.replace(/^```[^\n]*\n[\s\S]*?^```$/gm, '').replace(/`+[^`\n]*`+/g, 'code');
}

/** A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to hyphens; repeats get -1, -2... */
export function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  const outside = text.replace(/^```[^\n]*\n[\s\S]*?^```$/gm, '');
  for (const [, heading] of outside.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const plain = heading!.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
    const base = plain.toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '').replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** Every link and image target of the prose: `[text](target)`, `![alt](target "title")`. */
export function linksOf(text: string): string[] {
  return [...prose(text).matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!);
}
