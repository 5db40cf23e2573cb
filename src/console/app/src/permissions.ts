import type { Role } from '../generated/graphql';
import type { Operator } from './session';

/**
 * What the console offers whom: the operators' API's table (README, "The operators' API"). The API
 * checks every call itself; this only keeps controls that would be refused off the page.
 */
export const may = {
  /** Block, unblock, change the role, start a change of the phone number, delete: ADMIN, never on their own account. */
  administer: (operator: Operator, account: { id: string }) => operator.role === 'ADMIN' && operator.id !== account.id,
  /** End every session: ADMIN, or SUPPORT for a USER's account. */
  revokeSessions: (operator: Operator, account: { role: Role }) => operator.role === 'ADMIN' || account.role === 'USER',
  /** The audit log and the webhook deliveries: ADMIN. */
  readAudit: (operator: Operator) => operator.role === 'ADMIN',
  manageWebhooks: (operator: Operator) => operator.role === 'ADMIN',
};
