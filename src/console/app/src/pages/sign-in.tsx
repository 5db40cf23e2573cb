import { useApolloClient } from '@apollo/client/react';
import { browserSupportsWebAuthn, startAuthentication, type PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/browser';
import { useEffect, useState, type FormEvent } from 'react';
import {
  ConsoleLoginDocument,
  ConsoleLoginWithPasskeyDocument,
  ConsoleLoginWithPasswordDocument,
  ConsolePasskeyOptionsDocument,
  ConsoleSendCodeDocument,
  ConsoleVerifyMfaDocument,
  type ConsoleAuthPayloadFragment,
} from '../../generated/graphql';
import { apiErrorOf, isApiError } from '../../../../client/index';
import { useMessages, type Message } from '../i18n/messages';
import { LanguageSwitch } from '../ui/language-switch';
import { ErrorNotice } from '../ui/status';
import { useSessionObject } from '../use-session';

/** A second factor the API asked for (MFA_REQUIRED), with the token that carries the first one. */
interface SecondStep {
  mfaToken: string;
  methods: string[];
}

/** The session's own requests carry no bearer token. */
const anonymous = { anonymous: true };

/**
 * Sign-in: a phone number with an SMS code or a password, then a TOTP or recovery code when the
 * account has TOTP on; or a passkey, alone (it needs no second factor). An account without an
 * operator role is told so and signed out again (Session.begin).
 */
export function SignInPage({ notice }: { notice?: Message }) {
  const { t } = useMessages();
  const [second, setSecond] = useState<SecondStep>();
  const title = t('console.title', { page: t('signIn.title') });
  useEffect(() => {
    document.title = title;
  }, [title]);
  return (
    <main id="main" className="sign-in">
      <LanguageSwitch />
      <h1>{t('console.name')}</h1>
      <p className="lead">{t('signIn.lead')}</p>
      {notice ? (
        <p role="alert" className="notice">
          {t(notice.key, notice.values)}
        </p>
      ) : null}
      {second ? <SecondFactor step={second} onRestart={() => setSecond(undefined)} /> : <FirstFactor onSecond={setSecond} />}
    </main>
  );
}

function useSignIn(onSecond?: (step: SecondStep) => void) {
  const session = useSessionObject();
  const [busy, setBusy] = useState<string>();
  const [error, setError] = useState<unknown>();
  const run = async (what: string, request: () => Promise<ConsoleAuthPayloadFragment | undefined | void>) => {
    if (busy) return;
    setBusy(what);
    setError(undefined);
    try {
      const payload = await request();
      if (payload) await session.begin(payload);
    } catch (failure) {
      const refusal = apiErrorOf(failure);
      if (onSecond && isApiError(refusal, 'MFA_REQUIRED')) {
        onSecond({ mfaToken: refusal.extensions.mfaToken, methods: refusal.extensions.mfaMethods });
      } else {
        setError(failure);
      }
    } finally {
      setBusy(undefined);
    }
  };
  return { busy, error, run };
}

function usePasskey() {
  const client = useApolloClient();
  return async () => {
    const options = await client.mutate({ mutation: ConsolePasskeyOptionsDocument, context: anonymous });
    const { challengeId, options: optionsJSON } = options.data!.passkeyLoginOptions;
    const response = await startAuthentication({ optionsJSON: optionsJSON as PublicKeyCredentialRequestOptionsJSON });
    const signedIn = await client.mutate({ mutation: ConsoleLoginWithPasskeyDocument, variables: { challengeId, response }, context: anonymous });
    return signedIn.data!.loginWithPasskey;
  };
}

function FirstFactor({ onSecond }: { onSecond: (step: SecondStep) => void }) {
  const { t } = useMessages();
  const client = useApolloClient();
  const passkey = usePasskey();
  const { busy, error, run } = useSignIn(onSecond);
  const [phone, setPhone] = useState('');
  const [method, setMethod] = useState<'code' | 'password'>('code');
  const [code, setCode] = useState('');
  const [password, setPassword] = useState('');
  const [sent, setSent] = useState<{ phone: string; minutes: number }>();

  const sendCode = () =>
    run('send', async () => {
      const { data } = await client.mutate({ mutation: ConsoleSendCodeDocument, variables: { phone }, context: anonymous });
      setSent({ phone, minutes: Math.round(data!.sendCode.expiresIn / 60) });
    });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (method === 'code' && !sent) return void sendCode();
    void run('sign-in', async () => {
      if (method === 'code') return (await client.mutate({ mutation: ConsoleLoginDocument, variables: { phone, code }, context: anonymous })).data!.login;
      return (await client.mutate({ mutation: ConsoleLoginWithPasswordDocument, variables: { phone, password }, context: anonymous })).data!.loginWithPassword;
    });
  };

  return (
    <>
      <form onSubmit={submit} className="panel" aria-labelledby="sign-in-phone">
        <h2 id="sign-in-phone">{t('signIn.phone.heading')}</h2>
        <div className="field">
          <label htmlFor="phone">{t('signIn.phone.label')}</label>
          <input id="phone" type="tel" autoComplete="username" required autoFocus value={phone} onChange={(e) => setPhone(e.target.value)} />
        </div>
        <fieldset className="choice">
          <legend>{t('signIn.method.legend')}</legend>
          <label>
            <input type="radio" name="method" value="code" checked={method === 'code'} onChange={() => setMethod('code')} /> {t('signIn.method.code')}
          </label>
          <label>
            <input type="radio" name="method" value="password" checked={method === 'password'} onChange={() => setMethod('password')} /> {t('signIn.method.password')}
          </label>
        </fieldset>
        {method === 'code' && sent ? (
          <>
            <p role="status">{t('signIn.code.sent', { phone: sent.phone, minutes: sent.minutes })}</p>
            <div className="field">
              <label htmlFor="code">{t('signIn.code.label')}</label>
              <input id="code" inputMode="numeric" autoComplete="one-time-code" required autoFocus value={code} onChange={(e) => setCode(e.target.value)} />
            </div>
          </>
        ) : null}
        {method === 'password' ? (
          <div className="field">
            <label htmlFor="password">{t('signIn.password.label')}</label>
            <input id="password" type="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
          </div>
        ) : null}
        <div className="actions">
          {method === 'code' ? (
            <button type={sent ? 'button' : 'submit'} className={sent ? undefined : 'primary'} aria-disabled={Boolean(busy) || undefined} onClick={sent ? () => void sendCode() : undefined}>
              {busy === 'send' ? t('signIn.sending') : sent ? t('signIn.sendAgain') : t('signIn.send')}
            </button>
          ) : null}
          {method === 'password' || sent ? (
            <button type="submit" className="primary" aria-disabled={Boolean(busy) || undefined}>
              {busy === 'sign-in' ? t('signIn.submitting') : t('signIn.submit')}
            </button>
          ) : null}
        </div>
        {error && busy === undefined ? <ErrorNotice error={error} /> : null}
      </form>
      {browserSupportsWebAuthn() ? (
        <section className="panel" aria-labelledby="sign-in-passkey">
          <h2 id="sign-in-passkey">{t('signIn.passkey.heading')}</h2>
          <p>{t('signIn.passkey.text')}</p>
          <button type="button" aria-disabled={Boolean(busy) || undefined} onClick={() => void run('passkey', passkey)}>
            {busy === 'passkey' ? t('signIn.passkey.waiting') : t('signIn.passkey.button')}
          </button>
        </section>
      ) : null}
    </>
  );
}

function SecondFactor({ step, onRestart }: { step: SecondStep; onRestart: () => void }) {
  const { t } = useMessages();
  const client = useApolloClient();
  const passkey = usePasskey();
  const { busy, error, run } = useSignIn();
  const [code, setCode] = useState('');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void run('verify', async () => {
      const { data } = await client.mutate({ mutation: ConsoleVerifyMfaDocument, variables: { mfaToken: step.mfaToken, code }, context: anonymous });
      return data!.verifyMfa;
    });
  };
  const recovery = step.methods.includes('recovery');
  return (
    <form onSubmit={submit} className="panel" aria-labelledby="second-factor">
      <h2 id="second-factor">{t('mfa.heading')}</h2>
      <p>{t('mfa.text')}</p>
      <div className="field">
        <label htmlFor="mfa-code">{recovery ? t('mfa.label.recovery') : t('mfa.label')}</label>
        <input id="mfa-code" autoComplete="one-time-code" required autoFocus value={code} onChange={(e) => setCode(e.target.value)} />
      </div>
      <div className="actions">
        <button type="submit" className="primary" aria-disabled={Boolean(busy) || undefined}>
          {busy === 'verify' ? t('mfa.verifying') : t('mfa.verify')}
        </button>
        {browserSupportsWebAuthn() ? (
          <button type="button" aria-disabled={Boolean(busy) || undefined} onClick={() => void run('passkey', passkey)}>
            {busy === 'passkey' ? t('signIn.passkey.waiting') : t('mfa.passkey')}
          </button>
        ) : null}
        <button type="button" aria-disabled={Boolean(busy) || undefined} onClick={() => busy || onRestart()}>
          {t('mfa.restart')}
        </button>
      </div>
      {error && busy === undefined ? <ErrorNotice error={error} /> : null}
    </form>
  );
}
