/**
 * The journal of a change proposed in Slack that was approved, ran and was verified afterwards,
 * event by event: what a file or PostgreSQL journal holds for it, in order.
 */
export const SLACK_CHANGE_VERIFIED = [
  'created',
  'message',
  'approved',
  'executing',
  'succeeded',
  'verified',
] as const;

/** The same for a change that no Slack message shows (an MCP client's, a store test's): no `message`. */
export const CHANGE_VERIFIED = ['created', 'approved', 'executing', 'succeeded', 'verified'] as const;
