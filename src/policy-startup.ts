import { readFileSync } from 'node:fs';
import type { Config } from './config.js';
import { DEFAULT_POLICY, type Policy } from './policy/policy.js';
import { PolicyFileError } from './policy/policy-error.js';

/**
 * The policy in effect, read once at start (policy/ itself does no I/O): POLICY_FILE parsed and
 * type-checked, or the default policy when it is unset. Throws PolicyFileError (a ConfigError:
 * the bot stops with exit code 2, the file, line and rule named); nothing falls back silently.
 * The parser (YAML, and the CEL compiler for `when` conditions: about 13 MiB and a few hundred ms
 * at start) is loaded only when a file is set.
 */
export async function loadPolicy(config: Pick<Config, 'policy' | 'identity'>): Promise<Policy> {
  const file = config.policy.file;
  if (!file) return withIdentity(DEFAULT_POLICY, config);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const reason = error instanceof Error && 'code' in error ? String(error.code) : 'unreadable';
    throw new PolicyFileError(file, [{ message: `cannot be read (${reason})` }]);
  }
  const { parsePolicy } = await import('./policy/parse.js');
  const policy = parsePolicy(text, file);
  const needing = policy.rules.filter((r) => r.stepUp === true);
  if (needing.length > 0 && !config.identity) {
    // Fail closed at start: a rule asking for a sign-in nobody can give would block its changes.
    throw new PolicyFileError(
      file,
      needing.map((r) => ({
        line: r.line,
        rule: r.name,
        message:
          'step_up needs an identity provider: set OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET and PUBLIC_URL',
      })),
    );
  }
  return withIdentity(policy, config);
}

/** With an identity provider, the policy asks step-up sign-in for high-risk approvals by default. */
function withIdentity(policy: Policy, config: Pick<Config, 'identity'>): Policy {
  return config.identity ? { ...policy, identityProvider: true } : policy;
}

/**
 * The policy of an app built without one: the default, when no POLICY_FILE is set. With one, the
 * caller loads it first (`await loadPolicy(config)`, as main.ts does), since loading is async.
 */
export function policyWithoutFile(config: Pick<Config, 'policy' | 'identity'>): Policy {
  if (config.policy.file) {
    throw new Error(
      `POLICY_FILE is set (${config.policy.file}): pass the policy to createApp (deps.policy = await loadPolicy(config))`,
    );
  }
  return withIdentity(DEFAULT_POLICY, config);
}
