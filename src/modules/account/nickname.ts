import { z } from 'zod';
import { AppError, ErrorCode, msg, type Message } from '../../shared/errors/app-error.js';

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
const NICKNAME_MAX_LENGTH = 32;
const EMOJI_TAG_SEQUENCE = /\u{1F3F4}[\u{E0020}-\u{E007E}]+\u{E007F}/gu;

/**
 * Trims and checks a nickname: 1-32 user-perceived characters (an emoji counts as one), no control
 * characters; stored composed (NFC), so that `Zoë` typed either way is one nickname to the search.
 */
export function normaliseNickname(raw: string): string {
  const nickname = raw.trim().normalize('NFC');
  const length = [...segmenter.segment(nickname)].length;
  const invalid = (reason: Message) =>
    new AppError(ErrorCode.VALIDATION_FAILED, msg('nickname.invalid', { reason }), { fields: { nickname: reason } });
  if (length === 0) throw invalid(msg('nickname.reason.empty'));
  if (length > NICKNAME_MAX_LENGTH) throw invalid(msg('nickname.reason.tooLong', { max: String(NICKNAME_MAX_LENGTH) }));
  // Parts of emoji are not control characters: joiners, variation selectors, and tag characters
  // inside a flag tag sequence (🏴 + tags + cancel tag: England, Scotland, Wales) and nowhere else.
  const withoutEmojiParts = nickname.replace(EMOJI_TAG_SEQUENCE, '').replace(/\u200d|\ufe0f/g, '');
  if (/[\p{Cc}\p{Cf}\u2028\u2029]/u.test(withoutEmojiParts)) {
    throw invalid(msg('nickname.reason.control'));
  }
  return nickname;
}

/** A shape bound on top of the 32-grapheme rule of normaliseNickname: one grapheme can be arbitrarily long. */
const NICKNAME_MAX_CODE_POINTS = 256;

/** The nickname field of a request, before normaliseNickname: a string of at most 256 code points. */
export const nicknameField = z
  .string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string') })
  .refine((s) => s.length <= NICKNAME_MAX_CODE_POINTS || [...s].length <= NICKNAME_MAX_CODE_POINTS, {
    error: `must be at most ${NICKNAME_MAX_CODE_POINTS} code points`,
  });

/** `User` followed by the last four digits of the phone. */
export function defaultNickname(e164: string): string {
  return `User${e164.slice(-4)}`;
}
