// A real OpenID Connect provider (oidc-provider) in this process, for single sign-on tests: authorization code flow
// with PKCE, signed ID tokens, userinfo. Whoever the test says is "at the keyboard" is signed in at the provider's
// login step at once, and consent is given for the scopes the client asks (the provider's own screens are not ours
// to test).
import { generateKeyPairSync } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export interface TestAccount {
  email: string;
  /** The `svc_role` claim (a role, or anything else to test refusal); left out when undefined. */
  role?: string;
  /** The `email_verified` claim: true when undefined; null leaves it out; any other value is sent as it is. */
  emailVerified?: unknown;
}

export interface TestProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Who signs in at the provider next. */
  signInAs(account: TestAccount): void;
  close(): Promise<void>;
}

/** Starts a provider on 127.0.0.1 with one confidential client whose redirect URIs are given. */
export async function startTestProvider(redirectUris: string[]): Promise<TestProvider> {
  let current: TestAccount = { email: 'nobody@example.com' };
  const accounts = new Map<string, TestAccount>();
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientId = 'svc-console';
  const clientSecret = 'a-test-client-secret-of-enough-length';
  // The provider's own signing key, made for this run (the provider warns about its built-in development keys).
  const signing = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });
  const provider = new Provider(issuer, {
    jwks: { keys: [{ ...signing, kid: 'test', use: 'sig', alg: 'RS256' }] },
    clients: [{ client_id: clientId, client_secret: clientSecret, redirect_uris: redirectUris, grant_types: ['authorization_code'], response_types: ['code'] }],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'svc_role'] },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    cookies: { keys: ['test-cookie-key-1'] },
    findAccount: (_ctx, sub) => {
      const account = accounts.get(sub);
      return account ? {
        accountId: sub,
        claims: () => ({
          sub, email: account.email, name: account.email,
          ...(account.emailVerified !== null ? { email_verified: account.emailVerified ?? true } : {}),
          ...(account.role !== undefined ? { svc_role: account.role } : {}),
        }),
      } : undefined;
    },
    // Consent for what the client asks, given at once.
    loadExistingGrant: async (ctx) => {
      const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client!.clientId, accountId: ctx.oidc.session!.accountId! });
      grant.addOIDCScope('openid email profile');
      await grant.save();
      return grant;
    },
  });
  const handle = provider.callback();
  server.on('request', (req, res) => {
    const interaction = /^\/interaction\/([\w-]+)$/.exec(req.url ?? '');
    if (!interaction) {
      handle(req, res);
      return;
    }
    const sub = `sub-${current.email}`;
    accounts.set(sub, current);
    provider.interactionFinished(req, res, { login: { accountId: sub } }, { mergeWithLastSubmission: false }).catch((error: unknown) => {
      res.statusCode = 500;
      res.end(String(error));
    });
  });
  return {
    issuer, clientId, clientSecret,
    signInAs: (account) => { current = account; },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
