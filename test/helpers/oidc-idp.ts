import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

/** One account of the test identity provider: its subject and email (always verified). */
export interface IdpAccount {
  subject: string;
  email: string;
}

export interface TestIdp {
  issuer: string;
  /**
   * Who the next login is: the interaction signs this account in without a form, as having
   * authenticated `authenticatedSecondsAgo` ago [0] (a session the provider kept from earlier).
   */
  signInAs(subject: string, authenticatedSecondsAgo?: number): void;
  close(): Promise<void>;
}

/**
 * An OpenID Provider (oidc-provider) on loopback for the tests: one confidential client, and an
 * interaction that logs in and consents for whichever account the test chose, so a "browser" is
 * plain HTTP requests following redirects.
 */
export async function startTestIdp(options: {
  accounts: IdpAccount[];
  client: { id: string; secret: string; redirectUri: string };
}): Promise<TestIdp> {
  let next = options.accounts[0]?.subject ?? '';
  let authAgo = 0;
  let provider: Provider | undefined;
  const server: Server = createServer((req, res) => {
    if (!provider) return void res.writeHead(503).end();
    if (req.url?.startsWith('/interaction/')) {
      void finishInteraction(provider, req, res, next, options.client.id, authAgo).catch(() =>
        res.writeHead(500).end(),
      );
      return;
    }
    provider.callback()(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  provider = new Provider(issuer, {
    clients: [
      {
        client_id: options.client.id,
        client_secret: options.client.secret,
        redirect_uris: [options.client.redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    findAccount: (_ctx: unknown, id: string) => {
      const account = options.accounts.find((a) => a.subject === id);
      return account
        ? { accountId: id, claims: () => ({ sub: id, email: account.email, email_verified: true }) }
        : undefined;
    },
    claims: { openid: ['sub'], email: ['email', 'email_verified'] },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    features: { devInteractions: { enabled: false } },
    cookies: { keys: ['test-idp-cookie-key'] },
  });
  return {
    issuer,
    signInAs: (subject, authenticatedSecondsAgo = 0) => {
      next = subject;
      authAgo = authenticatedSecondsAgo;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function finishInteraction(
  provider: Provider,
  req: Parameters<Provider['interactionDetails']>[0],
  res: Parameters<Provider['interactionDetails']>[1],
  accountId: string,
  clientId: string,
  authAgo: number,
): Promise<void> {
  await provider.interactionDetails(req, res);
  const grant = new provider.Grant({ accountId, clientId });
  grant.addOIDCScope('openid email');
  const grantId = await grant.save();
  await provider.interactionFinished(
    req,
    res,
    { login: { accountId, ts: Math.floor(Date.now() / 1000) - authAgo }, consent: { grantId } },
    { mergeWithLastSubmission: false },
  );
}

/**
 * A browser in plain HTTP: follows redirects by hand with a cookie jar, until the redirect reaches
 * `stopAt`; returns that last URL (not fetched).
 */
export async function followToCallback(start: string, stopAt: string): Promise<string> {
  const jar = new Map<string, string>();
  let url = start;
  for (let hop = 0; hop < 20; hop += 1) {
    if (url.startsWith(stopAt)) return url;
    const answer = await fetch(url, {
      redirect: 'manual',
      headers: jar.size > 0 ? { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') } : {},
    });
    for (const line of answer.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const at = pair.indexOf('=');
      if (at > 0) jar.set(pair.slice(0, at).trim(), pair.slice(at + 1).trim());
    }
    const location = answer.headers.get('location');
    await answer.arrayBuffer();
    if (!location) throw new Error(`the sign-in stopped at ${url} (HTTP ${answer.status})`);
    url = new URL(location, url).href;
  }
  throw new Error('too many redirects');
}

/**
 * The bot's step-up settings against a test provider's `client`: a 60 s link, a 5 min max_age, and
 * plain http (the provider is on loopback).
 */
export function testStepUpConfig(idp: TestIdp, client: { id: string; secret: string; redirectUri: string }) {
  return {
    issuer: idp.issuer,
    clientId: client.id,
    clientSecret: client.secret,
    redirectUri: client.redirectUri,
    insecure: true,
    linkSeconds: 60,
    maxAgeSeconds: 300,
  };
}
