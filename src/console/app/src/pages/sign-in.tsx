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
export function SignInPage({ notice }: { notice?: string }) {
  const [second, setSecond] = useState<SecondStep>();
  useEffect(() => {
    document.title = 'Sign in · Operator console';
  }, []);
  return (
    <main id="main" className="sign-in">
      <h1>Operator console</h1>
      <p className="lead">meeting-accounts: find, inspect, block and audit accounts. For SUPPORT and ADMIN operators.</p>
      {notice ? (
        <p role="alert" className="notice">
          {notice}
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
        <h2 id="sign-in-phone">With your phone number</h2>
        <div className="field">
          <label htmlFor="phone">Phone number</label>
          <input id="phone" type="tel" autoComplete="username" required autoFocus value={phone} onChange={(e) => setPhone(e.target.value)} />
        </div>
        <fieldset className="choice">
          <legend>Prove it with</legend>
          <label>
            <input type="radio" name="method" value="code" checked={method === 'code'} onChange={() => setMethod('code')} /> a code sent by SMS
          </label>
          <label>
            <input type="radio" name="method" value="password" checked={method === 'password'} onChange={() => setMethod('password')} /> the account's password
          </label>
        </fieldset>
        {method === 'code' && sent ? (
          <>
            <p role="status">
              A code was sent to {sent.phone}; it is valid for {sent.minutes} minutes.
            </p>
            <div className="field">
              <label htmlFor="code">Code from the SMS</label>
              <input id="code" inputMode="numeric" autoComplete="one-time-code" required autoFocus value={code} onChange={(e) => setCode(e.target.value)} />
            </div>
          </>
        ) : null}
        {method === 'password' ? (
          <div className="field">
            <label htmlFor="password">Password</label>
            <input id="password" type="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
          </div>
        ) : null}
        <div className="actions">
          {method === 'code' ? (
            <button type={sent ? 'button' : 'submit'} className={sent ? undefined : 'primary'} aria-disabled={Boolean(busy) || undefined} onClick={sent ? () => void sendCode() : undefined}>
              {busy === 'send' ? 'Sending…' : sent ? 'Send a new code' : 'Send code'}
            </button>
          ) : null}
          {method === 'password' || sent ? (
            <button type="submit" className="primary" aria-disabled={Boolean(busy) || undefined}>
              {busy === 'sign-in' ? 'Signing in…' : 'Sign in'}
            </button>
          ) : null}
        </div>
        {error && busy === undefined ? <ErrorNotice error={error} /> : null}
      </form>
      {browserSupportsWebAuthn() ? (
        <section className="panel" aria-labelledby="sign-in-passkey">
          <h2 id="sign-in-passkey">With a passkey</h2>
          <p>No phone number needed: the browser asks which passkey to use.</p>
          <button type="button" aria-disabled={Boolean(busy) || undefined} onClick={() => void run('passkey', passkey)}>
            {busy === 'passkey' ? 'Waiting for the passkey…' : 'Sign in with a passkey'}
          </button>
        </section>
      ) : null}
    </>
  );
}

function SecondFactor({ step, onRestart }: { step: SecondStep; onRestart: () => void }) {
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
      <h2 id="second-factor">Second factor</h2>
      <p>This account has two-step verification on.</p>
      <div className="field">
        <label htmlFor="mfa-code">{recovery ? 'Code from the authenticator app, or a recovery code' : 'Code from the authenticator app'}</label>
        <input id="mfa-code" autoComplete="one-time-code" required autoFocus value={code} onChange={(e) => setCode(e.target.value)} />
      </div>
      <div className="actions">
        <button type="submit" className="primary" aria-disabled={Boolean(busy) || undefined}>
          {busy === 'verify' ? 'Verifying…' : 'Verify'}
        </button>
        {browserSupportsWebAuthn() ? (
          <button type="button" aria-disabled={Boolean(busy) || undefined} onClick={() => void run('passkey', passkey)}>
            {busy === 'passkey' ? 'Waiting for the passkey…' : 'Use a passkey instead'}
          </button>
        ) : null}
        <button type="button" aria-disabled={Boolean(busy) || undefined} onClick={() => busy || onRestart()}>
          Start over
        </button>
      </div>
      {error && busy === undefined ? <ErrorNotice error={error} /> : null}
    </form>
  );
}
