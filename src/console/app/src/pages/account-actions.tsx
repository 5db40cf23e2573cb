import { useMutation } from '@apollo/client/react';
import { useState } from 'react';
import {
  ConsoleBlockDocument,
  ConsoleDeleteDocument,
  ConsoleRevokeSessionsDocument,
  ConsoleSetRoleDocument,
  ConsoleUnblockDocument,
  type Role,
} from '../../generated/graphql';
import { useMessages } from '../i18n/messages';
import { may } from '../permissions';
import { navigate, to } from '../router';
import { ConfirmDialog } from '../ui/confirm-dialog';
import { useOperator } from '../use-session';
import type { Account } from './account';
import { ChangePhoneDialog } from './account-phone';

type Action = 'block' | 'unblock' | 'role' | 'phone' | 'revoke' | 'delete';
/** What an action changes besides what its answer carries: the sessions, the events. */
const refetchQueries = ['ConsoleAccount'];
const ROLES: Role[] = ['USER', 'SUPPORT', 'ADMIN'];

/**
 * The actions the signed-in operator may take on the account, each behind a dialog that confirms
 * it. Controls the role may not use are not shown; the API decides anyway, and its refusal is shown
 * in the dialog.
 */
export function AccountActions({ account, onChanged }: { account: Account; onChanged: () => void }) {
  const { t } = useMessages();
  const operator = useOperator();
  const [open, setOpen] = useState<Action>();
  const administer = may.administer(operator, account);
  const revoke = may.revokeSessions(operator, account);
  if (!administer && !revoke) return null;
  const close = () => setOpen(undefined);
  const done = onChanged;
  return (
    <section aria-labelledby="actions">
      <h2 id="actions">{t('actions.heading')}</h2>
      <div className="actions">
        {administer ? (
          // One button that turns from Block into Unblock, so that the focus stays on it after either.
          <button type="button" className={account.status === 'ACTIVE' ? 'danger' : undefined} onClick={() => setOpen(account.status === 'ACTIVE' ? 'block' : 'unblock')}>
            {account.status === 'ACTIVE' ? t('actions.block') : t('actions.unblock')}
          </button>
        ) : null}
        {revoke ? (
          <button type="button" onClick={() => setOpen('revoke')}>
            {t('actions.revoke')}
          </button>
        ) : null}
        {administer ? (
          <button type="button" onClick={() => setOpen('role')}>
            {t('actions.role')}
          </button>
        ) : null}
        {administer ? (
          <button type="button" onClick={() => setOpen('phone')}>
            {t('actions.phone')}
          </button>
        ) : null}
        {administer ? (
          <button type="button" className="danger" onClick={() => setOpen('delete')}>
            {t('actions.delete')}
          </button>
        ) : null}
      </div>
      {open === 'block' ? <BlockDialog account={account} onClose={close} onDone={done} /> : null}
      {open === 'unblock' ? <UnblockDialog account={account} onClose={close} onDone={done} /> : null}
      {open === 'revoke' ? <RevokeDialog account={account} onClose={close} onDone={done} /> : null}
      {open === 'role' ? <RoleDialog account={account} onClose={close} onDone={done} /> : null}
      {open === 'phone' ? <ChangePhoneDialog account={account} onClose={close} onDone={done} /> : null}
      {open === 'delete' ? <DeleteDialog account={account} onClose={close} /> : null}
    </section>
  );
}

interface DialogProps {
  account: Account;
  onClose: () => void;
  onDone: () => void;
}

function BlockDialog({ account, onClose, onDone }: DialogProps) {
  const { t } = useMessages();
  const [block] = useMutation(ConsoleBlockDocument, { refetchQueries });
  const [reason, setReason] = useState('');
  return (
    <ConfirmDialog
      title={t('block.title', { phone: account.phone })}
      confirm={t('block.confirm')}
      busy={t('block.busy')}
      danger
      invalid={reason.trim() ? undefined : t('reason.missing')}
      onClose={onClose}
      onConfirm={async () => {
        await block({ variables: { id: account.id, reason: reason.trim() } });
        onDone();
      }}
    >
      <p>{t('block.text')}</p>
      <div className="field">
        <label htmlFor="block-reason">{t('reason.label')}</label>
        <textarea id="block-reason" required maxLength={500} rows={3} value={reason} onChange={(e) => setReason(e.target.value)} />
      </div>
    </ConfirmDialog>
  );
}

function UnblockDialog({ account, onClose, onDone }: DialogProps) {
  const { t } = useMessages();
  const [unblock] = useMutation(ConsoleUnblockDocument, { refetchQueries });
  return (
    <ConfirmDialog
      title={t('unblock.title', { phone: account.phone })}
      confirm={t('unblock.confirm')}
      busy={t('unblock.busy')}
      onClose={onClose}
      onConfirm={async () => {
        await unblock({ variables: { id: account.id } });
        onDone();
      }}
    >
      <p>{t('unblock.text', { reason: account.blockedReason ?? '' })}</p>
    </ConfirmDialog>
  );
}

function RevokeDialog({ account, onClose, onDone }: DialogProps) {
  const { t } = useMessages();
  const [revoke] = useMutation(ConsoleRevokeSessionsDocument, { refetchQueries });
  return (
    <ConfirmDialog
      title={t('revoke.title', { phone: account.phone })}
      confirm={t('revoke.confirm')}
      busy={t('revoke.busy')}
      danger
      onClose={onClose}
      onConfirm={async () => {
        await revoke({ variables: { id: account.id } });
        onDone();
      }}
    >
      <p>{t('revoke.text', { count: account.activeSessions })}</p>
    </ConfirmDialog>
  );
}

function RoleDialog({ account, onClose, onDone }: DialogProps) {
  const { t } = useMessages();
  const [setRole] = useMutation(ConsoleSetRoleDocument, { refetchQueries });
  const [role, choose] = useState<Role>(account.role);
  const current = t('enum.role', { role: account.role });
  return (
    <ConfirmDialog
      title={t('role.title', { phone: account.phone })}
      confirm={t('role.confirm')}
      busy={t('role.busy')}
      invalid={role === account.role ? t('role.same', { role: current }) : undefined}
      onClose={onClose}
      onConfirm={async () => {
        await setRole({ variables: { id: account.id, role } });
        onDone();
      }}
    >
      <p>{t('role.text', { role: current })}</p>
      <div className="field">
        <label htmlFor="new-role">{t('role.label')}</label>
        <select id="new-role" value={role} onChange={(e) => choose(e.target.value as Role)}>
          {ROLES.map((r) => (
            <option key={r} value={r}>
              {t('enum.role', { role: r })}
            </option>
          ))}
        </select>
      </div>
    </ConfirmDialog>
  );
}

function DeleteDialog({ account, onClose }: Omit<DialogProps, 'onDone'>) {
  const { t } = useMessages();
  const [remove] = useMutation(ConsoleDeleteDocument);
  const [typed, setTyped] = useState('');
  const confirmed = typed.replace(/[\s-]/g, '') === account.phone;
  return (
    <ConfirmDialog
      title={t('delete.title', { phone: account.phone })}
      confirm={t('delete.confirm')}
      busy={t('delete.busy')}
      danger
      invalid={confirmed ? undefined : t('delete.mismatch', { phone: account.phone })}
      onClose={onClose}
      onConfirm={async () => {
        await remove({ variables: { id: account.id } });
        navigate(to('/'), { replace: true, notice: { key: 'search.deleted', values: { phone: account.phone } } });
      }}
    >
      <p>{t('delete.text')}</p>
      <div className="field">
        <label htmlFor="delete-phone">{t('delete.label', { phone: account.phone })}</label>
        <input id="delete-phone" autoComplete="off" value={typed} onChange={(e) => setTyped(e.target.value)} />
      </div>
    </ConfirmDialog>
  );
}
