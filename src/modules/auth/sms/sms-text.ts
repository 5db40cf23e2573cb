import { CodePurpose } from '../code-purpose.js';
import type { PhoneChangeNotice, SmsMessage } from './sms-provider.js';

/** The text of an SMS: a code, said for what it is, or a phone change's notice. */
export function smsText({ code, purpose, ttlSeconds, notice }: SmsMessage): string {
  if (notice) return noticeText(notice);
  const minutes = Math.round(ttlSeconds / 60);
  switch (purpose) {
    case CodePurpose.PHONE_CHANGE:
      return `Your code to make this number your account's phone number is ${code}. It expires in ${minutes} minutes. Do not share it.`;
    case CodePurpose.PHONE_CHANGE_CURRENT:
      return `Your code to move your account to another phone number is ${code}. It expires in ${minutes} minutes. If you did not ask for it, do not share it and sign in to check your account.`;
    default:
      return `Your verification code is ${code}. It expires in ${minutes} minutes. Do not share it.`;
  }
}

/** Only the last digits of the new number: the notice reaches the old number, which may no longer be the owner's. */
function noticeText(notice: PhoneChangeNotice): string {
  const ending = notice.newPhone.slice(-4);
  if (notice.kind === 'changed') {
    return `Your account's phone number was changed to a number ending in ${ending}. If this was not you, contact support.`;
  }
  const when = notice.appliesAt.toISOString().slice(0, 16).replace('T', ' ');
  return `Your account's phone number will be changed to a number ending in ${ending} on ${when} UTC. If this was not you, sign in with this number to cancel it.`;
}
