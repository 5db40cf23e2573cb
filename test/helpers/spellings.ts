// Other spellings of a value that may be used once (API.md 10.0): what a lenient base64url decoder
// reads as the same bytes (padding, whitespace around it, the unused low bits of a last character),
// and a change of case, which is other bytes. Shared by the hardening tests and the fuzz run.

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

export interface Spelling {
  name: string;
  value: string;
}

/** `segment` with its last character's lowest bit flipped, when that bit carries no data (length 2 or 3 mod 4). */
export function flipUnusedBits(segment: string): string | undefined {
  if (segment.length % 4 < 2) return undefined;
  const last = ALPHABET.indexOf(segment.at(-1)!);
  return `${segment.slice(0, -1)}${ALPHABET[last ^ 1]}`;
}

/** The first letter of `value` in the other case (undefined when it has no letter). */
function otherCase(value: string): string | undefined {
  const at = value.search(/[A-Za-z]/);
  if (at < 0) return undefined;
  const letter = value[at]!;
  const swapped = letter === letter.toUpperCase() ? letter.toLowerCase() : letter.toUpperCase();
  return `${value.slice(0, at)}${swapped}${value.slice(at + 1)}`;
}

/** Padding and whitespace around `value`: the same bytes to a lenient decoder. */
export function paddedSpellings(value: string, { whitespace = true } = {}): Spelling[] {
  const spellings = [
    { name: '"==" appended', value: `${value}==` },
    { name: '"=" appended', value: `${value}=` },
  ];
  if (!whitespace) return spellings;
  return [
    ...spellings,
    { name: 'a trailing "\\n"', value: `${value}\n` },
    { name: 'a trailing "\\r\\n"', value: `${value}\r\n` },
    { name: 'a trailing "\\t"', value: `${value}\t` },
    { name: 'a trailing space', value: `${value} ` },
    { name: 'a leading space', value: ` ${value}` },
  ];
}

/**
 * Every other spelling of an opaque token of this service (randomToken(): 43 characters, whose last
 * one has two unused bits) or of a compact JWT: padded, with whitespace (unless `whitespace` is
 * false: an HTTP header's value loses it on the way), its last character (for a JWT: of the
 * signature, and of the payload where it has unused bits) changed in its unused bits, a letter in
 * the other case (other bytes: it must fail the signature or be unknown).
 */
export function spellingsOf(value: string, options: { whitespace?: boolean } = {}): Spelling[] {
  const spellings = paddedSpellings(value, options);
  const parts = value.split('.');
  const add = (name: string, changed: string | undefined) => {
    if (changed !== undefined && changed !== value) spellings.push({ name, value: changed });
  };
  if (parts.length === 3) {
    const [header, payload, signature] = parts as [string, string, string];
    add('unused bits of the signature', flipUnusedBits(signature) && `${header}.${payload}.${flipUnusedBits(signature)}`);
    add('unused bits of the payload', flipUnusedBits(payload) && `${header}.${flipUnusedBits(payload)}.${signature}`);
    add('a letter of the header in the other case', `${otherCase(header)}.${payload}.${signature}`);
    add('a letter of the payload in the other case', `${header}.${otherCase(payload)}.${signature}`);
  } else {
    add('unused bits of the last character', flipUnusedBits(value));
    add('a letter in the other case', otherCase(value));
  }
  return spellings;
}
