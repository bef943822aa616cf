import type { ChangeRequest } from '../../src/model/change-request.js';

/**
 * A change Rita made that succeeded at `at`, as the timer tests hand it over: the tool, its
 * arguments and its id are the test's, and `extra` adds or overrides any other field.
 */
export function succeededChange(
  at: number,
  change: { id: string; tool: string; args: Record<string, unknown> },
  extra: Record<string, unknown> = {},
): ChangeRequest {
  return {
    id: change.id,
    tool: change.tool,
    site: 'default',
    args: { site_id: 'default', ...change.args },
    requester: { userId: 'U0RITA' },
    preview: {},
    previewHash: 'a'.repeat(64),
    createdAt: new Date(at).toISOString(),
    expiresAt: new Date(at + 900_000).toISOString(),
    state: 'succeeded',
    ...extra,
  } as ChangeRequest;
}
