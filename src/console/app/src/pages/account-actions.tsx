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
  const operator = useOperator();
  const [open, setOpen] = useState<Action>();
  const administer = may.administer(operator, account);
  const revoke = may.revokeSessions(operator, account);
  if (!administer && !revoke) return null;
  const close = () => setOpen(undefined);
  const done = onChanged;
  return (
    <section aria-labelledby="actions">
      <h2 id="actions">Actions</h2>
      <div className="actions">
        {administer ? (
          // One button that turns from Block into Unblock, so that the focus stays on it after either.
          <button type="button" className={account.status === 'ACTIVE' ? 'danger' : undefined} onClick={() => setOpen(account.status === 'ACTIVE' ? 'block' : 'unblock')}>
            {account.status === 'ACTIVE' ? 'Block…' : 'Unblock…'}
          </button>
        ) : null}
        {revoke ? (
          <button type="button" onClick={() => setOpen('revoke')}>
            Revoke all sessions…
          </button>
        ) : null}
        {administer ? (
          <button type="button" onClick={() => setOpen('role')}>
            Change role…
          </button>
        ) : null}
        {administer ? (
          <button type="button" onClick={() => setOpen('phone')}>
            Change phone number…
          </button>
        ) : null}
        {administer ? (
          <button type="button" className="danger" onClick={() => setOpen('delete')}>
            Delete account…
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
  const [block] = useMutation(ConsoleBlockDocument, { refetchQueries });
  const [reason, setReason] = useState('');
  return (
    <ConfirmDialog
      title={`Block ${account.phone}`}
      confirm="Block account"
      busy="Blocking…"
      danger
      invalid={reason.trim() ? undefined : 'Give a reason: it is kept in the audit log and shown to other operators.'}
      onClose={onClose}
      onConfirm={async () => {
        await block({ variables: { id: account.id, reason: reason.trim() } });
        onDone();
      }}
    >
      <p>Its sessions end at once and it cannot sign in until it is unblocked.</p>
      <div className="field">
        <label htmlFor="block-reason">Reason (required, up to 500 characters)</label>
        <textarea id="block-reason" required maxLength={500} rows={3} value={reason} onChange={(e) => setReason(e.target.value)} />
      </div>
    </ConfirmDialog>
  );
}

function UnblockDialog({ account, onClose, onDone }: DialogProps) {
  const [unblock] = useMutation(ConsoleUnblockDocument, { refetchQueries });
  return (
    <ConfirmDialog
      title={`Unblock ${account.phone}`}
      confirm="Unblock account"
      busy="Unblocking…"
      onClose={onClose}
      onConfirm={async () => {
        await unblock({ variables: { id: account.id } });
        onDone();
      }}
    >
      <p>Blocked because: “{account.blockedReason}”. Once unblocked, the account can sign in again.</p>
    </ConfirmDialog>
  );
}

function RevokeDialog({ account, onClose, onDone }: DialogProps) {
  const [revoke] = useMutation(ConsoleRevokeSessionsDocument, { refetchQueries });
  return (
    <ConfirmDialog
      title={`Revoke every session of ${account.phone}`}
      confirm="Revoke all sessions"
      busy="Revoking…"
      danger
      onClose={onClose}
      onConfirm={async () => {
        await revoke({ variables: { id: account.id } });
        onDone();
      }}
    >
      <p>
        Its {account.activeSessions} live session{account.activeSessions === 1 ? '' : 's'} end at once: it has to sign in again on every device.
      </p>
    </ConfirmDialog>
  );
}

function RoleDialog({ account, onClose, onDone }: DialogProps) {
  const [setRole] = useMutation(ConsoleSetRoleDocument, { refetchQueries });
  const [role, choose] = useState<Role>(account.role);
  return (
    <ConfirmDialog
      title={`Change the role of ${account.phone}`}
      confirm="Change role"
      busy="Changing…"
      invalid={role === account.role ? `The account is ${account.role} already: choose another role.` : undefined}
      onClose={onClose}
      onConfirm={async () => {
        await setRole({ variables: { id: account.id, role } });
        onDone();
      }}
    >
      <p>It is {account.role} now. The change takes effect on its next request.</p>
      <div className="field">
        <label htmlFor="new-role">New role</label>
        <select id="new-role" value={role} onChange={(e) => choose(e.target.value as Role)}>
          {ROLES.map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </select>
      </div>
    </ConfirmDialog>
  );
}

function DeleteDialog({ account, onClose }: Omit<DialogProps, 'onDone'>) {
  const [remove] = useMutation(ConsoleDeleteDocument);
  const [typed, setTyped] = useState('');
  const confirmed = typed.replace(/[\s-]/g, '') === account.phone;
  return (
    <ConfirmDialog
      title={`Delete ${account.phone}`}
      confirm="Delete for good"
      busy="Deleting…"
      danger
      invalid={confirmed ? undefined : `Type ${account.phone} exactly to confirm.`}
      onClose={onClose}
      onConfirm={async () => {
        await remove({ variables: { id: account.id } });
        navigate(to('/'), { replace: true, notice: `The account ${account.phone} was deleted.` });
      }}
    >
      <p>The account, its sessions, usage and avatar are deleted; its security events and audit entries stay. This cannot be undone.</p>
      <div className="field">
        <label htmlFor="delete-phone">Type the phone number, {account.phone}, to confirm</label>
        <input id="delete-phone" autoComplete="off" value={typed} onChange={(e) => setTyped(e.target.value)} />
      </div>
    </ConfirmDialog>
  );
}
