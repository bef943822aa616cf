import type { Actor } from './types.js';

/** Prefix of the user id of a change request an MCP client asked for: `mcp:<token label>`. */
export const MCP_REQUESTER_PREFIX = 'mcp:';

const SLACK_USER = /^[UW][A-Z0-9]{2,}$/;

/** The longest client label shown (name and version from the initialize handshake, together). */
export const MAX_CLIENT_LABEL = 64;

// What a client's name may show: letters, digits, spaces and a few punctuation marks that no
// Slack or Markdown syntax gives a meaning to. Everything else (markup like * _ ~ ` : < > & |,
// line breaks, control and invisible characters) becomes a space.
const NOT_LABEL = /[^\p{L}\p{N} .,'()+/#@-]+/gu;

/**
 * An MCP client's own name and version, as a label that can be shown anywhere: untrusted text
 * (the client chooses it in initialize) made plain, one line, at most MAX_CLIENT_LABEL characters
 * (an ellipsis marks a cut). Empty when nothing showable is left.
 */
export function clientLabel(client: { name?: unknown; version?: unknown }): string {
  const raw = [client.name, client.version]
    .filter((part): part is string => typeof part === 'string')
    .join(' ');
  const plain = raw.normalize('NFC').replace(NOT_LABEL, ' ').replace(/\s+/g, ' ').trim();
  return plain.length <= MAX_CLIENT_LABEL ? plain : `${plain.slice(0, MAX_CLIENT_LABEL - 1).trimEnd()}…`;
}

/**
 * The requester of a change an MCP client asked for: its token's label (the holder) as the id, and
 * the client's own name from the initialize handshake beside it, quoted as a label (plain, one
 * line, bounded: clientLabel), so approvers read who asked and cannot be told anything else.
 */
export function mcpRequester(label: string, client?: { name?: unknown; version?: unknown }): Actor {
  const shown = client ? clientLabel(client) : '';
  const clientName = shown === '' ? 'an MCP client' : `“${shown}”`;
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

/**
 * Every requester user id whose `personOf` is `person` (the user, and their MCP token
 * when its label is their Slack id), so a store query can leave out a viewer's own requests.
 */
export function requesterIdsOf(person: string): string[] {
  const ids: string[] = [];
  if (personOf({ userId: person }) === person) ids.push(person);
  if (SLACK_USER.test(person)) ids.push(`${MCP_REQUESTER_PREFIX}${person}`);
  return ids;
}
