/**
 * The inputs of a tool's form. In a fleet every call names its console, so a form for a tool that
 * does not ask for one itself gets a Console input first: without it a form opened because the
 * console was missing could never be completed.
 */
import type { ArgumentInfo } from '../../tools/core/schema-introspection.js';
import type { SlackDeps } from '../deps.js';

// Slack's static menus hold at most 100 options; a larger fleet types the name.
const MENU_OPTIONS = 100;

/** The tool's arguments, with `console` first when the bot serves a fleet and the tool takes it from the registry. */
export function formInputsOf(deps: Pick<SlackDeps, 'registry' | 'context'>, tool: string): ArgumentInfo[] {
  const infos = deps.registry.argumentsOf(tool);
  const consoles = deps.context.consoles;
  if (!consoles?.fleet || infos.some((info) => info.name === 'console')) return infos;
  const names = consoles.list().map((entry) => entry.name);
  const console: ArgumentInfo = {
    name: 'console',
    required: true,
    description: 'The console it runs on',
    ...(names.length <= MENU_OPTIONS ? { kind: 'enum', options: names } : { kind: 'string' }),
  };
  return [console, ...infos];
}

/** What a form opened in `channel` starts with: the channel's one console when it is bound to one. */
export function channelConsole(deps: Pick<SlackDeps, 'context'>, channel: string): string | undefined {
  const scope = deps.context.consoles?.channel(channel);
  return scope?.consoles.length === 1 ? scope.consoles[0] : undefined;
}
