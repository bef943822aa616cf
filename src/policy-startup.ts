import { readFileSync } from 'node:fs';
import type { Config } from './config.js';
import { DEFAULT_POLICY, type Policy, PolicyFileError, parsePolicy } from './policy/index.js';

/**
 * The policy in effect, read once at start (policy/ itself does no I/O): POLICY_FILE parsed and
 * type-checked, or the default policy when it is unset. Throws PolicyFileError (a ConfigError:
 * the bot stops with exit code 2, the file, line and rule named); nothing falls back silently.
 */
export function loadPolicy(config: Pick<Config, 'policy'>): Policy {
  const file = config.policy.file;
  if (!file) return DEFAULT_POLICY;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const reason = error instanceof Error && 'code' in error ? String(error.code) : 'unreadable';
    throw new PolicyFileError(file, [{ message: `cannot be read (${reason})` }]);
  }
  return parsePolicy(text, file);
}
