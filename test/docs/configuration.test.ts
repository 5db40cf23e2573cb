// docs/configuration.md is rendered from the configuration schema, where each variable's description
// lives: CI fails when the file is stale, or when a variable is added without its description.
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { configVariables, renderConfigReference } from '../../src/config/reference.js';
import { FEATURES } from '../../src/config/describe.js';

const committed = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');

describe('docs/configuration.md', () => {
  it('is what the schema renders (run npm run docs:config after changing a variable)', () => {
    const rendered = renderConfigReference();
    if (rendered !== committed) throw new Error('docs/configuration.md is stale: run npm run docs:config and commit it');
  });

  it('describes every variable of the schema, each under a known feature', () => {
    const variables = configVariables();
    expect(variables.length).toBeGreaterThan(90);
    const undocumented = variables.filter((v) => v.description.trim().length < 10 || !(v.feature in FEATURES)).map((v) => v.name);
    expect(undocumented).toEqual([]);
    for (const v of variables) expect(committed).toContain(`| \`${v.name}\` |`);
  });

  it('states a type for every variable, and the values of every enumeration', () => {
    for (const v of configVariables()) {
      expect([v.name, v.type.length > 0]).toEqual([v.name, true]);
      if (v.type === 'enum' || v.type === 'boolean') expect([v.name, v.values.length > 0]).toEqual([v.name, true]);
    }
  });
});
