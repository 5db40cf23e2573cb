import { z } from 'zod';

// What every text input is checked for where it enters, on both transports: what PostgreSQL cannot
// store (U+0000 in text and jsonb, an unpaired surrogate that the driver's UTF-8 encoding would turn
// into U+FFFD, or that jsonb refuses as an escape), and, field by field, control characters.

/** The deepest nesting a JSON input may have: the `JSON` scalar's limit, and a REST body's. */
export const JSON_MAX_DEPTH = 32;

/** Why `text` cannot be stored as it is, or undefined when it can. */
export function unstorable(text: string): string | undefined {
  if (text.includes('\u0000')) return 'must not contain NUL characters (U+0000)';
  if (!text.isWellFormed()) return 'must not contain unpaired surrogates (it is not valid Unicode)';
  return undefined;
}

export interface InputProblem {
  /** Where: the keys and indexes from the value checked down to the string, or to the container too deep. */
  path: (string | number)[];
  problem: string;
  /** A nesting too deep rather than a text. */
  tooDeep: boolean;
}

/**
 * The first place in a parsed input (a JSON body, a query string's parameters, a GraphQL variable)
 * where a string or an object key cannot be stored, or where objects and arrays nest deeper than
 * `maxDepth` (the value itself counts as one level). Iterative, so that no nesting can exhaust the stack.
 */
export function findInputProblem(value: unknown, maxDepth = JSON_MAX_DEPTH): InputProblem | undefined {
  const stack: { value: unknown; path: (string | number)[] }[] = [{ value, path: [] }];
  while (stack.length > 0) {
    const { value: node, path } = stack.pop()!;
    if (typeof node === 'string') {
      const problem = unstorable(node);
      if (problem) return { path, problem, tooDeep: false };
    } else if (node !== null && typeof node === 'object') {
      if (path.length >= maxDepth) return { path, problem: `must not nest objects and arrays more than ${maxDepth} levels deep`, tooDeep: true };
      if (Array.isArray(node)) {
        for (let i = node.length - 1; i >= 0; i--) stack.push({ value: node[i], path: [...path, i] });
      } else {
        const keys = Object.keys(node);
        for (let i = keys.length - 1; i >= 0; i--) {
          const key = keys[i]!;
          const keyProblem = unstorable(key);
          if (keyProblem) return { path: [...path, key], problem: `its name ${keyProblem}`, tooDeep: false };
          stack.push({ value: (node as Record<string, unknown>)[key], path: [...path, key] });
        }
      }
    }
  }
  return undefined;
}

/** Control characters: C0, DEL and C1. */
const CONTROL = /\p{Cc}/u;
/** Control characters but tabs and line breaks. */
const CONTROL_BUT_LINES = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/u;
/** Format characters (bidi overrides, zero-width ones) and the Unicode line and paragraph separators. */
const FORMAT = /[\p{Cf}\u2028\u2029]/u;

/**
 * Whether `text` holds a control character (with `lines`, tabs and line breaks do not count) or,
 * unless `format` is false, a format character: what a one-line label or a reason may not hold.
 */
export function hasControlCharacters(text: string, { lines = false, format = true }: { lines?: boolean; format?: boolean } = {}): boolean {
  return (lines ? CONTROL_BUT_LINES : CONTROL).test(text) || (format && FORMAT.test(text));
}

/**
 * A free-text field: trimmed, 1 to `max` characters, no control or format characters (with
 * `lines`, tabs and line breaks are allowed). NUL and unpaired surrogates never get this far.
 */
export const textField = (max: number, { lines = false }: { lines?: boolean } = {}) =>
  z
    .string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string') })
    .transform((text) => text.trim())
    .pipe(
      z
        .string()
        .min(1, 'must not be empty')
        .max(max, `must be at most ${max} characters`)
        .refine((text) => !hasControlCharacters(text, { lines }), lines ? 'must not contain control characters other than tabs and line breaks' : 'must not contain control characters'),
    );
