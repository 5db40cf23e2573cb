import { parse } from 'node:querystring';
import { parserError } from './parser-errors.js';

/** Query parameters a request may carry: no route reads more than a handful. */
export const QUERY_PARAMETER_LIMIT = 1000;

/**
 * Express's "query parser": node:querystring (Express 5's "simple": flat, a repeated name an array)
 * refusing more than QUERY_PARAMETER_LIMIT parameters with 413 PAYLOAD_TOO_LARGE, as the forms are,
 * where node:querystring alone would drop the ones past its 1,000 without a word. The string itself
 * is bounded by Node's header size limit (431 past it).
 */
export function parseQuery(query: string | null | undefined): Record<string, unknown> {
  if (!query) return {};
  let count = 1;
  for (let at = query.indexOf('&'); at !== -1; at = query.indexOf('&', at + 1)) {
    if (++count > QUERY_PARAMETER_LIMIT) throw parserError('query.parameters.too.many');
  }
  return parse(query, '&', '=', { maxKeys: 0 });
}
