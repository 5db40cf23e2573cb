// The test provider's login and consent pages, in place of oidc-provider's development ones (which
// warn on start, load a web font and have no labels): plain forms with labelled fields, usable by
// keyboard, and an account that must exist. Cancel on either page ends the request with
// access_denied, as a user who declines at a real provider.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type Provider from 'oidc-provider';

/** The paths of the pages, under oidc-provider's interaction URL (`/interaction/<uid>`). */
export const INTERACTION = /^\/interaction\/([\w-]+)(\/abort)?$/;

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(res: ServerResponse, status: number, title: string, body: string): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
  res.end(`<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>${escape(title)}</title></head><body><main>${body}</main></body></html>`);
}

const cancel = (uid: string) => `<form method="post" action="/interaction/${uid}/abort"><button type="submit">Cancel</button></form>`;

function loginPage(res: ServerResponse, uid: string, loginHint: string, error?: string): void {
  page(
    res,
    error ? 401 : 200,
    'Sign in',
    `<h1>Sign in</h1>${error ? `<p role="alert">${escape(error)}</p>` : ''}
<form method="post" action="/interaction/${uid}">
<label for="login">Account</label> <input id="login" name="login" autocomplete="username" required autofocus value="${escape(loginHint)}">
<button type="submit">Sign in</button>
</form>${cancel(uid)}`,
  );
}

function consentPage(res: ServerResponse, uid: string, clientId: string, accountId: string, scopes: string[]): void {
  const items = scopes.map((scope) => `<li>${escape(scope)}</li>`).join('');
  page(
    res,
    200,
    'Allow access',
    `<h1>Allow ${escape(clientId)} to access your account?</h1>
<p>Signed in as ${escape(accountId)}.</p>${items ? `<ul aria-label="Requested scopes">${items}</ul>` : ''}
<form method="post" action="/interaction/${uid}"><button type="submit">Allow</button></form>${cancel(uid)}`,
  );
}

async function formOf(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

/**
 * Answers a request for one of the pages (a path matching INTERACTION): GET shows the page of the
 * pending prompt, POST completes it (`login=<sub>` for the login prompt), POST .../abort declines.
 * oidc-provider then redirects the browser back into the authorization request.
 */
export async function interactionPage(provider: Provider, isAccount: (sub: string) => boolean, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const [, uid, abort] = INTERACTION.exec(new URL(req.url!, 'http://op').pathname)!;
  const { prompt, params, session, grantId } = await provider.interactionDetails(req, res);
  const clientId = String(params.client_id);
  if (abort && req.method === 'POST') {
    const result = { error: 'access_denied', error_description: 'End-User aborted interaction' };
    return provider.interactionFinished(req, res, result, { mergeWithLastSubmission: false });
  }
  if (prompt.name === 'login') {
    if (req.method !== 'POST') return loginPage(res, uid!, String(params.login_hint ?? ''));
    const login = (await formOf(req)).get('login') ?? '';
    if (!isAccount(login)) return loginPage(res, uid!, login, `No account "${login}" at this provider.`);
    return provider.interactionFinished(req, res, { login: { accountId: login } }, { mergeWithLastSubmission: false });
  }
  if (prompt.name === 'consent' && session) {
    const details = prompt.details as { missingOIDCScope?: string[]; missingOIDCClaims?: string[]; missingResourceScopes?: Record<string, string[]> };
    if (req.method !== 'POST') return consentPage(res, uid!, clientId, session.accountId, details.missingOIDCScope ?? []);
    const grant = grantId ? await provider.Grant.find(grantId) : new provider.Grant({ accountId: session.accountId, clientId });
    if (!grant) throw new Error(`grant ${grantId} of interaction ${uid} is gone`);
    if (details.missingOIDCScope) grant.addOIDCScope(details.missingOIDCScope.join(' '));
    if (details.missingOIDCClaims) grant.addOIDCClaims(details.missingOIDCClaims);
    for (const [indicator, scopes] of Object.entries(details.missingResourceScopes ?? {})) grant.addResourceScope(indicator, scopes.join(' '));
    return provider.interactionFinished(req, res, { consent: { grantId: await grant.save() } }, { mergeWithLastSubmission: true });
  }
  page(res, 501, 'Not implemented', `<h1>The test provider has no page for the prompt "${escape(prompt.name)}"</h1>`);
}
