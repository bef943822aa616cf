import { z } from 'zod';
import { NotSupportedError } from '../../errors.js';
import type { Gateway } from '../../gateway/types.js';

/** A free-text description (at most 256 characters, as the controller keeps one); `help` says whose. */
export function descriptionArg(help: string) {
  return z
    .string({ error: 'must be text' })
    .trim()
    .max(256, { error: 'must be at most 256 characters' })
    .describe(help);
}

/**
 * Spec 5: tools that need the console's local API are refused on a cloud gateway before any
 * request. `tools` names them; `why` says which local API they use and what the cloud lacks.
 */
export function requireLocal(gateway: Gateway, tools: string, why: string): void {
  if (gateway.apiType !== 'local') {
    throw new NotSupportedError(`${tools} need GATEWAY_API_TYPE=local: ${why}`);
  }
}
