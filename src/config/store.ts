import { resolve } from 'node:path';
import { z } from 'zod';
import { blankToUndefined, integer, readableFile, urlWith } from './fields.js';

/** DATABASE_SSL: TLS to PostgreSQL, with the server's certificate verified or not, or no TLS. */
export type DatabaseSsl = 'verify' | 'no-verify' | 'off';

const DATABASE_SSL_VALUES: Record<string, DatabaseSsl> = {
  true: 'verify',
  on: 'verify',
  require: 'verify',
  'verify-full': 'verify',
  'no-verify': 'no-verify',
  false: 'off',
  off: 'off',
  disable: 'off',
};

// Shared by the bot's whole configuration and by the store tools (audit:verify, store:import),
// which read only these variables.
export const storeShape = {
  DATA_DIR: z.preprocess(blankToUndefined, z.string().default('./data')),
  DATABASE_URL: z.preprocess(
    blankToUndefined,
    // Never echo the value: it usually carries a password.
    urlWith(['postgres:', 'postgresql:'], 'must be a postgres:// or postgresql:// URL').optional(),
  ),
  DATABASE_SSL: z.preprocess(
    (v) => (typeof v === 'string' ? blankToUndefined(v.trim().toLowerCase()) : v),
    z
      .string()
      .refine((v) => v in DATABASE_SSL_VALUES, {
        message: 'must be true (TLS, certificate verified), no-verify (TLS, not verified) or false',
      })
      .transform((v) => DATABASE_SSL_VALUES[v] as DatabaseSsl)
      .optional(),
  ),
  DATABASE_CA_FILE: readableFile,
  REPLICA_LEASE_SECONDS: integer(2, 600, 30),
  // A secret: never echoed. 32 characters or more, e.g. `openssl rand -hex 32`.
  JOURNAL_KEY: z.preprocess(
    blankToUndefined,
    z
      .string()
      .trim()
      .refine((v) => v.length >= 32, {
        message: 'must be at least 32 characters (for example the output of `openssl rand -hex 32`)',
      })
      .optional(),
  ),
};

export type StoreEnv = z.output<z.ZodObject<typeof storeShape>>;

export function storeRules(env: StoreEnv, ctx: z.RefinementCtx): void {
  const issue = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
  if (!env.DATABASE_URL) {
    if (env.DATABASE_SSL) issue('DATABASE_SSL', 'is used only with DATABASE_URL');
    if (env.DATABASE_CA_FILE) issue('DATABASE_CA_FILE', 'is used only with DATABASE_URL');
  } else if (env.DATABASE_CA_FILE && env.DATABASE_SSL && env.DATABASE_SSL !== 'verify') {
    issue(
      'DATABASE_CA_FILE',
      'verifies the server certificate, so DATABASE_SSL must be true (or unset) with it',
    );
  }
}

/** Where the bot keeps change requests, the journal and bot data. */
export function storeConfig(e: StoreEnv) {
  return {
    dataDir: resolve(e.DATA_DIR),
    /** Set: PostgreSQL, shared by several replicas. Unset: files under dataDir, one process. */
    ...(e.DATABASE_URL
      ? {
          database: {
            /** postgres://user:password@host:5432/db — a secret: never log it. */
            url: e.DATABASE_URL,
            /** Unset: whatever the URL says (sslmode=…). */
            ...(e.DATABASE_SSL ? { ssl: e.DATABASE_SSL } : {}),
            ...(e.DATABASE_CA_FILE ? { caFile: e.DATABASE_CA_FILE } : {}),
          },
        }
      : {}),
    /** A replica that has not renewed its lease for this long is presumed dead (its runs become unknown). */
    replicaLeaseSeconds: e.REPLICA_LEASE_SECONDS,
    /** JOURNAL_KEY: each journal event carries an HMAC-SHA256 under it. A secret: never log it. */
    ...(e.JOURNAL_KEY ? { journalKey: e.JOURNAL_KEY } : {}),
  };
}

export const storeEnvSchema = z.object(storeShape).superRefine(storeRules);

export type StoreConfig = ReturnType<typeof storeConfig>;
/** PostgreSQL as the shared store (DATABASE_URL and its TLS settings). */
export type DatabaseConfig = NonNullable<StoreConfig['database']>;
