import type { RequestHandler } from 'express';
import { AppError, ErrorCode, msg } from '../errors/app-error.js';
import { findInputProblem, unstorable } from '../text.js';
import { fieldMessage } from '../validation.js';

/** A path segment that would decode to U+0000; no other unstorable text survives percent-decoding (bad UTF-8 is a URIError, 400). */
const ENCODED_NUL = /%00/i;

/**
 * REST's half of the input check of every text (see text.ts): the path, the query string's
 * parameters and the JSON body, before any route reads them. A field that PostgreSQL could not store
 * is VALIDATION_FAILED naming it, as a wrongly typed field is; a body nested too deep, too.
 */
export const storableInput: RequestHandler = (req, _res, next) => {
  if (ENCODED_NUL.test(req.path)) throw invalid('(path)', 'must not contain NUL characters (%00)');
  if (req.url.includes('?')) checkFields(req.query, '(query)');
  checkFields(req.body, '(body)');
  next();
};

/** Each field of a body or query string, as a value of its own: `response` may nest as deep as a JSON value. */
function checkFields(input: unknown, whole: string): void {
  const fields = input !== null && typeof input === 'object' && !Array.isArray(input) ? Object.entries(input) : input === undefined ? [] : [[whole, input] as const];
  for (const [name, value] of fields) {
    const nameProblem = unstorable(name);
    if (nameProblem) throw invalid(name, `its name ${nameProblem}`);
    const found = findInputProblem(value);
    if (!found) continue;
    // `response.transports.0` for a text; for a nesting, the field that holds it.
    const field = found.tooDeep || found.path.length === 0 || name === whole ? name : `${name}.${found.path.join('.')}`;
    throw invalid(field, found.problem);
  }
}

function invalid(field: string, problem: string): AppError {
  return new AppError(ErrorCode.VALIDATION_FAILED, msg('input.fieldRefused', { field, problem: fieldMessage(problem) }), { fields: { [field]: fieldMessage(problem) } });
}
