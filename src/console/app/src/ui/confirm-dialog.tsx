import { useEffect, useId, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { useMessages } from '../i18n/messages';
import { ErrorNotice } from './status';

interface Props {
  title: string;
  /** The action's button: "Block account". */
  confirm: string;
  /** The same while the request runs: "Blocking…". */
  busy: string;
  /** Why the action cannot be confirmed yet (a reason missing), shown when confirmed anyway. */
  invalid?: string;
  danger?: boolean;
  /** Runs the action; a rejection is shown in the dialog, which stays open with its fields as they were. */
  onConfirm: () => Promise<void>;
  onClose: () => void;
  children: ReactNode;
}

/**
 * A modal dialog that confirms an action before it runs: the focus moves into it (its first field,
 * else its Cancel button) and back to what opened it when it closes; Escape cancels it. A refused
 * action leaves it open with the API's message and code, and nothing typed into it is lost.
 */
export function ConfirmDialog({ title, confirm, busy, invalid, danger, onConfirm, onClose, children }: Props) {
  const { t } = useMessages();
  const dialog = useRef<HTMLDialogElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  const titleId = useId();
  const [running, setRunning] = useState(false);
  const [error, setError] = useState<unknown>();
  const [shown, setShown] = useState<string>();

  useEffect(() => {
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const region = opener?.closest('section');
    const element = dialog.current!;
    element.showModal();
    const field = element.querySelector<HTMLElement>('input, textarea, select');
    (field ?? cancel.current)?.focus();
    return () => {
      element.close();
      // The action may have replaced its own button (Block becomes Unblock): then the first control
      // of the same part of the page.
      if (opener?.isConnected) opener.focus();
      else region?.querySelector<HTMLElement>('button, a[href]')?.focus();
    };
  }, []);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (running) return;
    setError(undefined);
    setShown(invalid);
    if (invalid) return;
    setRunning(true);
    try {
      await onConfirm();
      onClose();
    } catch (failure) {
      setError(failure);
      setRunning(false);
    }
  };

  return (
    <dialog
      ref={dialog}
      aria-labelledby={titleId}
      className="dialog"
      onCancel={(event) => {
        event.preventDefault();
        if (!running) onClose();
      }}
    >
      <form onSubmit={submit} noValidate>
        <h2 id={titleId}>{title}</h2>
        {children}
        {shown ? (
          <p role="alert" className="error">
            {shown}
          </p>
        ) : null}
        {error ? <ErrorNotice error={error} /> : null}
        <div className="actions">
          {/* aria-disabled rather than disabled while the request runs: a disabled button would drop the focus. */}
          <button type="submit" className={danger ? 'danger' : 'primary'} aria-disabled={running || undefined}>
            {running ? busy : confirm}
          </button>
          <button type="button" ref={cancel} onClick={() => running || onClose()} aria-disabled={running || undefined}>
            {t('dialog.cancel')}
          </button>
        </div>
      </form>
    </dialog>
  );
}
