import { useMutation } from '@apollo/client/react';
import { useState } from 'react';
import { ConsoleChangePhoneDocument } from '../../generated/graphql';
import { ConfirmDialog } from '../ui/confirm-dialog';
import { useMessages } from '../i18n/messages';
import { When } from '../ui/format';
import type { Account } from './account';

/** The account's change of phone number that waits or is being proven, as the profile shows it. */
export function PendingPhoneChange({ account }: { account: Account }) {
  const { t, rich } = useMessages();
  const change = account.pendingPhoneChange;
  if (!change) return <>{t('phoneChange.none')}</>;
  return (
    <>
      {rich(change.appliesAt ? 'phoneChange.applies' : 'phoneChange.pending', {
        status: (
          <span key="status" className="badge">
            {t('enum.phoneChangeStatus', { status: change.status })}
          </span>
        ),
        phone: change.phone,
        at: <When key="at" at={change.appliesAt} />,
      })}
    </>
  );
}

/**
 * An operator's change of the account's phone number (ADMIN): the new number and a reason, as a
 * block asks for one. It never applies at once: it waits the recovery delay, the account is told by
 * SMS at its current number and in its security events, and may cancel it meanwhile.
 */
export function ChangePhoneDialog({ account, onClose, onDone }: { account: Account; onClose: () => void; onDone: () => void }) {
  const { t } = useMessages();
  const [change] = useMutation(ConsoleChangePhoneDocument, { refetchQueries: ['ConsoleAccount'] });
  const [phone, setPhone] = useState('');
  const [reason, setReason] = useState('');
  const invalid = !phone.trim() ? t('changePhone.missing') : !reason.trim() ? t('reason.missing') : undefined;
  return (
    <ConfirmDialog
      title={t('changePhone.title', { phone: account.phone })}
      confirm={t('changePhone.confirm')}
      busy={t('changePhone.busy')}
      invalid={invalid}
      onClose={onClose}
      onConfirm={async () => {
        await change({ variables: { id: account.id, phone: phone.trim(), reason: reason.trim() } });
        onDone();
      }}
    >
      <p>{account.pendingPhoneChange ? t('changePhone.text.replacing', { phone: account.pendingPhoneChange.phone }) : t('changePhone.text')}</p>
      <div className="field">
        <label htmlFor="change-phone">{t('changePhone.label')}</label>
        <input id="change-phone" type="tel" autoComplete="off" required maxLength={32} value={phone} onChange={(e) => setPhone(e.target.value)} />
      </div>
      <div className="field">
        <label htmlFor="change-phone-reason">{t('reason.label')}</label>
        <textarea id="change-phone-reason" required maxLength={500} rows={3} value={reason} onChange={(e) => setReason(e.target.value)} />
      </div>
    </ConfirmDialog>
  );
}
