import type { ChangeRequest, MessageRef } from './types.js';

/**
 * Where change requests proposed outside Slack are shown to the people who approve them. The MCP
 * front end calls it after proposing; `app.ts` wires it to the Slack front end, so neither front
 * end imports the other.
 */
export interface ChangeNotifier {
  /**
   * Posts the request's preview with its Approve and Cancel buttons in the request's channel.
   * Resolves with the message that shows it (undefined if it could not be posted; the bot's sweep
   * tries again).
   */
  announce(request: ChangeRequest): Promise<MessageRef | undefined>;
  /** A link people can open to a message (undefined when Slack gives none). */
  link(message: MessageRef): Promise<string | undefined>;
  /**
   * Re-renders the request's message from its state (buttons gone once it is decided), after a
   * front end outside Slack decided it (an MCP task cancelled). Rejects when Slack refused the edit.
   */
  refresh?(request: ChangeRequest): Promise<void>;
}
