import type { IncomingMessage, ServerResponse } from 'node:http';
import { errors, type Interaction, type Provider } from 'oidc-provider';
import type { UserDirectory } from './accounts.js';
import { escapeHtml, page, sendHtml } from './html.js';

export const INTERACTION_PREFIX = '/interaction/';
const MAX_FORM_BYTES = 16 * 1024;

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') {
    throw new HttpError(415, 'Expected an application/x-www-form-urlencoded form post.');
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > MAX_FORM_BYTES) throw new HttpError(413, 'Form too large.');
    chunks.push(buffer);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

function loginPage(interaction: Interaction, options: { error?: string; username?: string }): string {
  const uid = encodeURIComponent(interaction.uid);
  const clientId = typeof interaction.params.client_id === 'string' ? interaction.params.client_id : '';
  const hint = typeof interaction.params.login_hint === 'string' ? interaction.params.login_hint : '';
  const username = options.username ?? hint;
  const error = options.error ? `<p class="error" role="alert">${escapeHtml(options.error)}</p>` : '';
  return page(
    'Sign in - Voxgate dev IdP',
    `<h1>Sign in</h1>
<p class="sub">to <strong>${escapeHtml(clientId)}</strong> (development identity provider)</p>
${error}
<form method="post" action="${INTERACTION_PREFIX}${uid}/login" autocomplete="off">
<label for="username">Username</label>
<input type="text" id="username" name="username" value="${escapeHtml(username)}" required autofocus>
<label for="password">Password</label>
<input type="password" id="password" name="password" required>
<button type="submit">Sign in</button>
</form>
<form method="post" action="${INTERACTION_PREFIX}${uid}/abort">
<button type="submit" class="secondary">Cancel</button>
</form>`,
  );
}

function errorPage(res: ServerResponse, status: number, message: string): void {
  sendHtml(res, status, page('Sign-in error', `<h1>Sign-in error</h1><p class="error">${escapeHtml(message)}</p>`));
}

/**
 * These clients are all first-party, so consent is granted programmatically:
 * exactly what oidc-provider reports as missing is added to the grant. Doing it
 * as an interaction step (rather than in loadExistingGrant) also satisfies the
 * "native clients require End-User interaction" consent check.
 */
async function grantConsent(provider: Provider, req: IncomingMessage, res: ServerResponse, interaction: Interaction): Promise<void> {
  const accountId = interaction.session?.accountId;
  const clientId = interaction.params.client_id;
  if (!accountId || typeof clientId !== 'string') throw new HttpError(400, 'Sign-in session is incomplete.');

  const existing = interaction.grantId ? await provider.Grant.find(interaction.grantId) : undefined;
  const grant = existing ?? new provider.Grant({ accountId, clientId });
  const { details } = interaction.prompt;
  if (details.missingOIDCScope?.length) grant.addOIDCScope(details.missingOIDCScope.join(' '));
  if (details.missingOIDCClaims?.length) grant.addOIDCClaims(details.missingOIDCClaims);
  for (const [resource, scopes] of Object.entries(details.missingResourceScopes ?? {})) {
    grant.addResourceScope(resource, scopes.join(' '));
  }
  const grantId = await grant.save();
  await provider.interactionFinished(req, res, { consent: existing ? {} : { grantId } }, { mergeWithLastSubmission: true });
}

/**
 * Serves /interaction/:uid (GET: login page or automatic consent),
 * /interaction/:uid/login and /interaction/:uid/abort (POST).
 * Returns false when the path is not an interaction route.
 */
export async function handleInteraction(
  provider: Provider,
  users: UserDirectory,
  req: IncomingMessage,
  res: ServerResponse,
  pathname: string,
): Promise<boolean> {
  if (!pathname.startsWith(INTERACTION_PREFIX)) return false;
  const [rawUid, action, ...rest] = pathname.slice(INTERACTION_PREFIX.length).split('/');
  if (!rawUid || rest.length > 0) return false;
  const uid = decodeURIComponent(rawUid);
  const method = req.method ?? 'GET';

  try {
    let interaction: Interaction;
    try {
      interaction = await provider.interactionDetails(req, res);
    } catch (error) {
      if (!(error instanceof errors.SessionNotFound)) throw error;
      throw new HttpError(400, 'This sign-in request has expired or was not started here. Return to the application and sign in again.');
    }
    if (interaction.uid !== uid) throw new HttpError(400, 'Sign-in request mismatch. Return to the application and sign in again.');

    if (action === undefined && (method === 'GET' || method === 'HEAD')) {
      switch (interaction.prompt.name) {
        case 'login':
          sendHtml(res, 200, loginPage(interaction, {}));
          return true;
        case 'consent':
          await grantConsent(provider, req, res, interaction);
          return true;
        default:
          throw new HttpError(400, `Unsupported interaction prompt "${interaction.prompt.name}".`);
      }
    }

    if (action === 'login' && method === 'POST') {
      if (interaction.prompt.name !== 'login') throw new HttpError(400, 'No sign-in is pending for this request.');
      const form = await readForm(req);
      const username = form.get('username') ?? '';
      const user = users.authenticate(username, form.get('password') ?? '');
      if (!user) {
        sendHtml(res, 200, loginPage(interaction, { error: 'Invalid username or password.', username }));
        return true;
      }
      await provider.interactionFinished(
        req,
        res,
        { login: { accountId: user.sub, amr: ['pwd'] } },
        { mergeWithLastSubmission: false },
      );
      return true;
    }

    if (action === 'abort' && method === 'POST') {
      await provider.interactionFinished(
        req,
        res,
        { error: 'access_denied', error_description: 'End-User aborted interaction' },
        { mergeWithLastSubmission: false },
      );
      return true;
    }

    res.setHeader('Allow', action === undefined ? 'GET, HEAD' : 'POST');
    throw new HttpError(405, 'Method not allowed.');
  } catch (error) {
    if (error instanceof HttpError) {
      errorPage(res, error.status, error.message);
      return true;
    }
    throw error;
  }
}
