import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { z } from 'zod';
import { ConfigError } from '../errors.js';

const fileSchema = z.record(
  z.string().regex(/^[UW][A-Z0-9]{2,}$/, { message: 'keys must be Slack user ids (U…)' }),
  z.string().trim().min(1).max(320),
);

/**
 * OIDC_USERS_FILE: Slack user id → the IdP subject or email that is that person. Read once at
 * start; a file that does not parse stops the bot (ConfigError) rather than matching nobody.
 */
export function readUsersFile(path: string): ReadonlyMap<string, string> {
  let data: unknown;
  try {
    data = parse(readFileSync(path, 'utf8')) ?? {};
  } catch (error) {
    const why = error instanceof Error && 'code' in error ? String(error.code) : 'not valid YAML';
    throw new ConfigError([{ field: 'OIDC_USERS_FILE', rule: `${path} cannot be read (${why})` }]);
  }
  const parsed = fileSchema.safeParse(data);
  if (!parsed.success) {
    throw new ConfigError([
      {
        field: 'OIDC_USERS_FILE',
        rule: `${path} must map Slack user ids to IdP subjects or emails: ${parsed.error.issues[0]?.message ?? 'bad shape'}`,
      },
    ]);
  }
  return new Map(Object.entries(parsed.data));
}
