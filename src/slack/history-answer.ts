import { listChanges, showChange } from '../approvals/history.js';
import { LIST_CHANGES } from '../commands/history.js';
import type { ParsedCommand } from '../commands/parse-command-line.js';
import { changeDetailMessage, changesMessage } from './blocks/change-history.js';
import type { SlackMessage } from './blocks/read-result.js';
import type { SlackDeps } from './deps.js';

/**
 * `/net changes …` and `/net change <id>`: answered from the store (the same questions and
 * criteria as the console's), with links to the requests' threads.
 */
export async function historyMessage(
  parsed: ParsedCommand,
  user: string,
  deps: SlackDeps,
): Promise<SlackMessage> {
  if (parsed.command === LIST_CHANGES) {
    const page = await listChanges(deps.approvals, parsed, {
      now: Date.now(),
      tools: deps.registry.list().map((tool) => tool.name),
      self: user,
    });
    const linkOf = deps.home ? await deps.home.linksOf(page.requests) : () => undefined;
    return changesMessage(page, linkOf);
  }
  const found = await showChange(deps.approvals, parsed);
  const linkOf = deps.home ? await deps.home.linksOf([found.request]) : () => undefined;
  return changeDetailMessage(found, linkOf(found.request));
}
