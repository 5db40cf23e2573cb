// The operator console's two languages (API.md 10.3): its message catalogues have the same keys, each
// message is valid ICU in its language with the same arguments and tags as its English one, every key
// the console's code names is in them, and no text of the console's pages is left outside them. And
// how the console picks the browser's language.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import { IntlMessageFormat } from 'intl-messageformat';
import ts from 'typescript';
import { browserLocale, LOCALES } from '../../src/console/app/src/i18n/locale.js';

const src = fileURLToPath(new URL('../../src/console/app/src/', import.meta.url));
const catalogue = (locale: string) => JSON.parse(readFileSync(join(src, 'i18n', `${locale}.json`), 'utf8')) as Record<string, string>;
const catalogues = Object.fromEntries(LOCALES.map((locale) => [locale, catalogue(locale)]));

type Element = ReturnType<IntlMessageFormat['getAst']>[number];
/** The arguments (`{phone}`, `{count, plural, …}`) and tags (`<hidden>`) of a message, at any depth. */
function namesIn(elements: Element[], names = new Set<string>()): Set<string> {
  for (const element of elements) {
    // The parser's element types: 1 argument, 2 number, 3 date, 4 time, 5 select, 6 plural, 8 tag.
    if ('value' in element && [1, 2, 3, 4, 5, 6].includes(element.type)) names.add(String(element.value));
    if (element.type === 8) {
      names.add(`<${element.value}>`);
      namesIn(element.children, names);
    }
    if ('options' in element) for (const option of Object.values(element.options)) namesIn(option.value, names);
  }
  return names;
}

const sources = readdirSync(src, { recursive: true, withFileTypes: true })
  .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name))
  .map((entry) => join(entry.parentPath, entry.name));

describe("the operator console's message catalogues", () => {
  it('have the same keys in zh-CN and en', () => {
    expect(Object.keys(catalogues['zh-CN']!).sort()).toEqual(Object.keys(catalogues.en!).sort());
    expect(Object.keys(catalogues.en!).length).toBeGreaterThan(150);
  });

  it('hold valid ICU messages with the same arguments and tags in both languages', () => {
    const differ: string[] = [];
    for (const key of Object.keys(catalogues.en!)) {
      const [zh, en] = [new IntlMessageFormat(catalogues['zh-CN']![key]!, 'zh-CN'), new IntlMessageFormat(catalogues.en![key]!, 'en')];
      const [zhNames, enNames] = [[...namesIn(zh.getAst())].sort(), [...namesIn(en.getAst())].sort()];
      if (zhNames.join() !== enNames.join()) differ.push(`${key}: zh-CN ${zhNames.join(' ')} / en ${enNames.join(' ')}`);
    }
    expect(differ).toEqual([]);
  });

  it('write Chinese in Chinese: every zh-CN message that is not a name or a code differs from its English one', () => {
    // The same in both: the switch's label (in both languages) and the languages' names, each written in itself.
    const same = Object.keys(catalogues.en!).filter((key) => catalogues.en![key] === catalogues['zh-CN']![key]);
    expect(same.sort()).toEqual(['language.en', 'language.label', 'language.zh-CN', 'profile.language.en', 'profile.language.zh-CN']);
  });

  it('have every key the console names', () => {
    const named = new Set<string>();
    for (const file of sources) {
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(/\b(?:t|rich)\(\s*'([^']+)'|\bkey: '([^']+)'|\? '([a-zA-Z]+\.[a-zA-Z.-]+)' : '([a-zA-Z]+\.[a-zA-Z.-]+)'/g)) {
        for (const key of match.slice(1)) if (key) named.add(key);
      }
    }
    for (const locale of LOCALES) named.add(`language.${locale}`).add(`profile.language.${locale}`);
    expect(named.size).toBeGreaterThan(150);
    expect([...named].filter((key) => !(key in catalogues.en!))).toEqual([]);
    // And none of the catalogues' messages is unused.
    expect(Object.keys(catalogues.en!).filter((key) => !named.has(key))).toEqual([]);
  });

  it("leave no text of the console's pages untranslated: no JSX text or labelling attribute holds words", () => {
    const attributes = new Set(['title', 'aria-label', 'label', 'placeholder', 'alt', 'caption', 'confirm', 'busy', 'invalid', 'none']);
    const found: string[] = [];
    for (const file of sources.filter((f) => f.endsWith('.tsx'))) {
      const sourceFile = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);
      const visit = (node: ts.Node): void => {
        if (ts.isJsxText(node) && /\p{L}/u.test(node.text)) found.push(`${file}: ${node.text.trim()}`);
        if (ts.isJsxAttribute(node) && attributes.has(node.name.getText()) && node.initializer) {
          const value = ts.isStringLiteral(node.initializer)
            ? node.initializer
            : ts.isJsxExpression(node.initializer) && node.initializer.expression && (ts.isStringLiteral(node.initializer.expression) || ts.isNoSubstitutionTemplateLiteral(node.initializer.expression) || ts.isTemplateExpression(node.initializer.expression))
              ? node.initializer.expression
              : undefined;
          if (value && /\p{L}/u.test(value.getText())) found.push(`${file}: ${node.getText()}`);
        }
        ts.forEachChild(node, visit);
      };
      visit(sourceFile);
    }
    expect(found).toEqual([]);
  });
});

describe("the console's language from the browser's", () => {
  it('is the first of its languages that is Chinese (any zh tag: zh-CN) or English, else English', () => {
    expect(browserLocale(['zh-CN', 'en'])).toBe('zh-CN');
    expect(browserLocale(['zh-TW'])).toBe('zh-CN');
    expect(browserLocale(['ZH-Hans-CN'])).toBe('zh-CN');
    expect(browserLocale(['zh'])).toBe('zh-CN');
    expect(browserLocale(['fr-FR', 'zh-HK', 'en'])).toBe('zh-CN');
    expect(browserLocale(['en-GB', 'zh-CN'])).toBe('en');
    expect(browserLocale(['fr-FR', 'de'])).toBe('en');
    expect(browserLocale([])).toBe('en');
  });
});
