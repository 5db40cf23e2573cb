import { useMutation } from '@apollo/client/react';
import { useState } from 'react';
import { ConsoleChangePhoneDocument } from '../../generated/graphql';
import { ConfirmDialog } from '../ui/confirm-dialog';
import { When } from '../ui/format';
import type { Account } from './account';

/** The account's change of phone number that waits or is being proven, as the profile shows it. */
export function PendingPhoneChange({ account }: { account: Account }) {
  const change = account.pendingPhoneChange;
  if (!change) return <>none pending</>;
  return (
    <>
      <span className="badge">{change.status}</span> to {change.phone}
      {change.appliesAt ? (
        <>
          , applies <When at={change.appliesAt} /> unless the account cancels it
        </>
      ) : null}
    </>
  );
}

/**
 * An operator's change of the account's phone number (ADMIN): the new number and a reason, as a
 * block asks for one. It never applies at once: it waits the recovery delay, the account is told by
 * SMS at its current number and in its security events, and may cancel it meanwhile.
 */
export function ChangePhoneDialog({ account, onClose, onDone }: { account: Account; onClose: () => void; onDone: () => void }) {
  const [change] = useMutation(ConsoleChangePhoneDocument, { refetchQueries: ['ConsoleAccount'] });
  const [phone, setPhone] = useState('');
  const [reason, setReason] = useState('');
  const invalid = !phone.trim()
    ? 'Give the new phone number.'
    : !reason.trim()
      ? 'Give a reason: it is kept in the audit log and shown to other operators.'
      : undefined;
  return (
    <ConfirmDialog
      title={`Change the phone number of ${account.phone}`}
      confirm="Start the change"
      busy="Starting…"
      invalid={invalid}
      onClose={onClose}
      onConfirm={async () => {
        await change({ variables: { id: account.id, phone: phone.trim(), reason: reason.trim() } });
        onDone();
      }}
    >
      <p>
        The change waits the recovery delay (72 hours unless configured otherwise) before it applies. An SMS tells the current number at once, the
        account sees it in its security events and can cancel it until then.
        {account.pendingPhoneChange ? ` It replaces the change to ${account.pendingPhoneChange.phone} that is pending now.` : ''}
      </p>
      <div className="field">
        <label htmlFor="change-phone">New phone number</label>
        <input id="change-phone" type="tel" autoComplete="off" required maxLength={32} value={phone} onChange={(e) => setPhone(e.target.value)} />
      </div>
      <div className="field">
        <label htmlFor="change-phone-reason">Reason (required, up to 500 characters)</label>
        <textarea id="change-phone-reason" required maxLength={500} rows={3} value={reason} onChange={(e) => setReason(e.target.value)} />
      </div>
    </ConfirmDialog>
  );
}
