import type { Actor } from './types.js';

/** Prefix of the user id of a change request an MCP client asked for: `mcp:<token label>`. */
export const MCP_REQUESTER_PREFIX = 'mcp:';

const SLACK_USER = /^[UW][A-Z0-9]{2,}$/;

/**
 * The requester of a change an MCP client asked for: its token's label (the holder) as the id, and
 * the client's own name from the initialize handshake beside it, so approvers read who asked.
 */
export function mcpRequester(label: string, client?: { name: string; version?: string }): Actor {
  const clientName = client ? [client.name, client.version].filter(Boolean).join(' ') : 'an MCP client';
  return { userId: `${MCP_REQUESTER_PREFIX}${label}`, name: `${clientName} via MCP (token ${label})` };
}

/** Whether a change request came from an MCP client rather than from a person in Slack. */
export function isMcpRequester(actor: Actor): boolean {
  return actor.userId.startsWith(MCP_REQUESTER_PREFIX);
}

/**
 * The Slack user who stands behind a requester: the user themself, or the holder of an MCP token
 * whose label is a Slack user id (`MCP_TOKEN=U0ALICE:…`), so four eyes still means two people.
 */
export function personOf(actor: Actor): string {
  if (!isMcpRequester(actor)) return actor.userId;
  const label = actor.userId.slice(MCP_REQUESTER_PREFIX.length);
  return SLACK_USER.test(label) ? label : actor.userId;
}
