import { z } from 'zod';
import { blankToUndefined, httpUrl, integer, LOOPBACK_HOSTS, readableFile } from './fields.js';

// Step-up sign-in (src/identity/): an OpenID Provider confirms who clicked Approve.
export const identityShape = {
  // Kept exactly as written: discovery compares it with the provider's `issuer`, trailing slash included.
  OIDC_ISSUER: z.preprocess(
    blankToUndefined,
    z
      .string()
      .trim()
      .refine((v) => URL.canParse(v) && /^https?:$/.test(new URL(v).protocol), {
        message: 'must be an http:// or https:// URL',
      })
      .optional(),
  ),
  OIDC_CLIENT_ID: z.preprocess(blankToUndefined, z.string().trim().min(1).max(255).optional()),
  OIDC_CLIENT_SECRET: z.preprocess(blankToUndefined, z.string().min(1).max(1024).optional()),
  PUBLIC_URL: httpUrl,
  OIDC_USERS_FILE: readableFile,
  OIDC_LINK_SECONDS: integer(5, 3600, 300),
  OIDC_MAX_AGE_SECONDS: integer(0, 86400, 300),
};

type IdentityEnv = z.output<z.ZodObject<typeof identityShape>>;

const isLoopback = (url: string) => LOOPBACK_HOSTS.has(new URL(url).hostname);

export function identityRules(env: IdentityEnv, issue: (path: string, message: string) => void): void {
  const set = [env.OIDC_ISSUER, env.OIDC_CLIENT_ID, env.OIDC_CLIENT_SECRET, env.PUBLIC_URL];
  if (set.some(Boolean)) {
    for (const [name, value] of [
      ['OIDC_ISSUER', env.OIDC_ISSUER],
      ['OIDC_CLIENT_ID', env.OIDC_CLIENT_ID],
      ['OIDC_CLIENT_SECRET', env.OIDC_CLIENT_SECRET],
      ['PUBLIC_URL', env.PUBLIC_URL],
    ] as const) {
      if (!value)
        issue(
          name,
          'is required for step-up sign-in (OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET, PUBLIC_URL)',
        );
    }
  }
  for (const [name, value] of [
    ['OIDC_ISSUER', env.OIDC_ISSUER],
    ['PUBLIC_URL', env.PUBLIC_URL],
  ] as const) {
    if (value && new URL(value).protocol !== 'https:' && !isLoopback(value)) {
      issue(name, 'must be https:// (plain http only to this machine)');
    }
  }
  if (env.OIDC_USERS_FILE && !env.OIDC_ISSUER) issue('OIDC_USERS_FILE', 'is used only with OIDC_ISSUER');
}

/** The identity provider for step-up sign-in; absent when none is configured. */
export function identityConfig(e: IdentityEnv) {
  if (!e.OIDC_ISSUER || !e.OIDC_CLIENT_ID || !e.OIDC_CLIENT_SECRET || !e.PUBLIC_URL) return undefined;
  return {
    issuer: e.OIDC_ISSUER,
    clientId: e.OIDC_CLIENT_ID,
    /** Sent to the provider's token endpoint only; never log it. */
    clientSecret: e.OIDC_CLIENT_SECRET,
    /** Where the provider sends the browser back: PUBLIC_URL + /oidc/callback. */
    redirectUri: `${e.PUBLIC_URL}/oidc/callback`,
    /** Plain http is accepted only for a provider on this machine (tests, a local proxy). */
    insecure: new URL(e.OIDC_ISSUER).protocol === 'http:',
    linkSeconds: e.OIDC_LINK_SECONDS,
    /**
     * How long ago the approver may have signed in at the provider: a session older than this signs
     * in again (`max_age`), so a browser left signed in does not stand for the person at it.
     */
    maxAgeSeconds: e.OIDC_MAX_AGE_SECONDS,
    ...(e.OIDC_USERS_FILE ? { usersFile: e.OIDC_USERS_FILE } : {}),
  };
}

export type IdentityConfig = NonNullable<ReturnType<typeof identityConfig>>;
