import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { IntlMessageFormat } from 'intl-messageformat';
import { ERROR_CODES } from '../../src/shared/errors/catalogue.js';
import { LOCALES } from '../../src/shared/i18n/locale.js';
import { CATALOGUES, msg, render } from '../../src/shared/i18n/messages.js';

// The CI check of the message catalogues (API.md 10.3: every code has its messages in both locales).

/** The names of the arguments a message takes, with their kind (`argument`, `plural`, `number` ...). */
function argumentsOf(pattern: string, locale: string): string[] {
  const found = new Set<string>();
  const walk = (nodes: unknown[]): void => {
    for (const node of nodes as { type: number; value?: string; options?: Record<string, { value: unknown[] }> }[]) {
      // Type 0 is literal text and 7 a `#` inside a plural; every other node names an argument.
      if (node.type !== 0 && node.type !== 7 && node.value) found.add(node.value);
      for (const option of Object.values(node.options ?? {})) walk(option.value);
    }
  };
  walk(new IntlMessageFormat(pattern, locale, undefined, { ignoreTag: true }).getAst());
  return [...found].sort();
}

/** Every .ts file under src/, but the catalogues' own module. */
function sources(dir = 'src'): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') && path !== join('src', 'shared', 'i18n', 'messages.ts') ? [path] : [];
  });
}

const en = CATALOGUES.en;
const zh = CATALOGUES['zh-CN'];
const ids = Object.keys(en);

describe('the message catalogues', () => {
  it('give every error code a title in each locale, and hold no title of a code that does not exist', () => {
    for (const locale of LOCALES) {
      const titles = Object.keys(CATALOGUES[locale]).filter((id) => id.startsWith('title.'));
      expect({ locale, titles: titles.sort() }).toEqual({ locale, titles: ERROR_CODES.map((code) => `title.${code}`).sort() });
    }
  });

  it('hold the same ids in zh-CN and en, read from the files themselves', () => {
    const file = (locale: string) => JSON.parse(readFileSync(join('src', 'shared', 'i18n', 'messages', `${locale}.json`), 'utf8')) as Record<string, string>;
    expect(Object.keys(file('zh-CN')).sort()).toEqual(Object.keys(file('en')).sort());
    expect(Object.keys(zh).sort()).toEqual(ids.sort());
  });

  it('parse as ICU messages, with the same arguments in both locales', () => {
    for (const id of ids) {
      const key = id as keyof typeof en;
      expect({ id, zh: argumentsOf(zh[key], 'zh-CN') }).toEqual({ id, zh: argumentsOf(en[key], 'en') });
    }
  });

  it('are translated: every zh-CN message but a bare quotation of other words is written in Chinese', () => {
    const untranslated = ids.filter((id) => {
      const text = zh[id as keyof typeof zh];
      const onlyArguments = /^(\{\w+\}\s*)+$/.test(text);
      // Han characters, or Chinese punctuation (the full-width colon between two quoted parts).
      return !onlyArguments && !/[\p{Script=Han}\u3000-\u303f\uff00-\uffef]/u.test(text);
    });
    expect(untranslated).toEqual([]);
  });

  it('have no id that the service never uses, and every id the service uses exists (by type, and here)', () => {
    const code = sources().map((path) => readFileSync(path, 'utf8')).join('\n');
    // A field message (`field.*`) is also met by its English text, which the input schemas write for zod.
    const written = (id: string) => {
      const parts = en[id as keyof typeof en].split(/\{\w+\}/).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
      return new RegExp(`['\`]${parts.join('[^\'`]*?')}['\`]`).test(code);
    };
    const unused = ids.filter((id) => !id.startsWith('title.') && !code.includes(`'${id}'`) && !(id.startsWith('field.') && written(id)));
    expect(unused).toEqual([]);
    const used = [...code.matchAll(/\bmsg\('([\w.]+)'/g)].map((match) => match[1]!);
    expect(used.length).toBeGreaterThan(100);
    expect(used.filter((id) => !(id in en))).toEqual([]);
    // An id not in the catalogue does not compile (typecheck runs in CI over test/ too).
    // @ts-expect-error: not an id of the catalogues
    expect(() => render(msg('no.such.message'), 'en')).toThrow();
  });

  it('render arguments, plurals and nested messages in the locale asked for', () => {
    const weak = msg('password.weak', { reason: msg('password.reason.tooShort', { min: '8' }) });
    expect(render(weak, 'en')).toBe('The password must be at least 8 characters');
    expect(render(weak, 'zh-CN')).toBe('密码至少需要 8 个字符');
    expect(render(msg('phoneChange.tooMany', { count: 1 }), 'en')).toBe('The phone number changed 1 time in 30 days; no more changes for now');
    expect(render(msg('phoneChange.tooMany', { count: 3 }), 'en')).toBe('The phone number changed 3 times in 30 days; no more changes for now');
    expect(render(msg('phoneChange.tooMany', { count: 3 }), 'zh-CN')).toBe('30 天内已更换 3 次手机号，暂时不能再更换');
    // Text arguments are taken as they are: no ICU syntax in them is read.
    expect(render(msg('graphql.invalidRequest', { detail: "Cannot query field \"x\" {y} 'z'" }), 'zh-CN')).toBe("请求不符合 GraphQL 接口定义：Cannot query field \"x\" {y} 'z'");
  });
});
