import type { TestServer } from '../helpers/server.js';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Scrape {
  text: string;
  samples: Sample[];
  /** The value of the series `name` whose labels include `labels`, summed over the others; 0 when absent. */
  value(name: string, labels?: Record<string, string>): number;
  /** Every label set of `name`. */
  series(name: string): Record<string, string>[];
}

/** GET /metrics on the server's metrics listener, parsed (the text exposition format, one sample a line). */
export async function scrape(t: TestServer): Promise<Scrape> {
  const url = t.server.metricsUrl;
  if (!url) throw new Error('the test server was started without METRICS_PORT');
  const res = await fetch(url);
  if (res.status !== 200) throw new Error(`scrape failed: ${res.status}`);
  return parse(await res.text());
}

export function parse(text: string): Scrape {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, raw] of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[key!] = raw!.replace(/\\(.)/g, '$1');
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  const matching = (name: string, labels: Record<string, string>) =>
    samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  return {
    text,
    samples,
    value: (name, labels = {}) => matching(name, labels).reduce((sum, s) => sum + s.value, 0),
    series: (name) => matching(name, {}).map((s) => s.labels),
  };
}
