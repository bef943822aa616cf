/**
 * A Slack channel bound to a console (or one of its sites) in CONSOLES_FILE: a command there runs
 * on that console and site unless it names others, and a write there that names another console
 * or site is refused, so a channel's writes never reach a console it is not bound to.
 */
import { ValidationError } from '../../errors.js';
import type { ToolRegistry } from '../../tools/core/registry.js';
import type { SlackDeps } from '../deps.js';

/** The arguments of a tool call made in `channel`, with the channel's console and site filled in. */
export function scopeToChannel(
  tool: string,
  args: Record<string, unknown>,
  channel: string,
  deps: Pick<SlackDeps, 'context'> & { registry: ToolRegistry },
): Record<string, unknown> {
  const scope = deps.context.consoles?.channel(channel);
  if (scope === undefined) return args;
  const definition = deps.registry.require(tool);
  // Fleet-wide reads (list_consoles, find_client) take `console=` as their own filter. One that also
  // takes `label=` (what is down) reads what the channel is bound to unless it names others, as the
  // channel's digest does.
  const infos = deps.registry.argumentsOf(tool);
  if (infos.some((info) => info.name === 'console')) {
    if (
      !infos.some((info) => info.name === 'label') ||
      args.console !== undefined ||
      args.label !== undefined
    )
      return args;
    if (scope.labels !== undefined)
      return {
        ...args,
        label: Object.entries(scope.labels)
          .map(([key, value]) => `${key}=${value}`)
          .join(','),
      };
    return scope.consoles.length === 1 ? { ...args, console: scope.consoles[0] } : args;
  }
  const scoped = { ...args };
  const [only] = scope.consoles;
  if ((scoped.console === undefined || scoped.console === '') && scope.consoles.length === 1)
    scoped.console = only;
  const takesSite = infos.some((info) => info.name === 'site_id');
  if (takesSite && scope.site !== undefined && scoped.site_id === undefined && scoped.site === undefined)
    scoped.site_id = scope.site;
  if (definition.access !== 'write') return scoped;
  const bound = scope.site === undefined ? scope.consoles.join(', ') : `${only}, site ${scope.site}`;
  const console = scoped.console;
  if (typeof console === 'string' && console !== '' && !scope.consoles.includes(console))
    throw new ValidationError([
      { field: 'console', rule: `this channel is bound to ${bound}: a write here cannot reach ${console}` },
    ]);
  const site = scoped.site_id ?? scoped.site;
  if (takesSite && scope.site !== undefined && site !== scope.site)
    throw new ValidationError([
      {
        field: 'console',
        rule: `this channel is bound to ${bound}: a write here cannot reach site ${String(site)}`,
      },
    ]);
  return scoped;
}

/** The steps of a plan typed or submitted in `channel`, each scoped as a command there would be. */
export function scopePlanToChannel<S extends { tool: string; args: Record<string, unknown>; line: number }>(
  steps: readonly S[],
  channel: string,
  deps: Pick<SlackDeps, 'context'> & { registry: ToolRegistry },
): S[] {
  return steps.map((step) => {
    try {
      return { ...step, args: scopeToChannel(step.tool, step.args, channel, deps) };
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      throw new ValidationError(
        error.issues.map((issue) => ({ ...issue, field: `line ${step.line} ${issue.field}` })),
      );
    }
  });
}

/** A rollout proposed in `channel` may reach only the consoles (and site) the channel is bound to. */
export function allowRolloutSite(
  site: { console: string; site: string },
  channel: string,
  deps: Pick<SlackDeps, 'context'>,
): void {
  const scope = deps.context.consoles?.channel(channel);
  if (scope === undefined) return;
  const inScope =
    scope.consoles.includes(site.console) && (scope.site === undefined || scope.site === site.site);
  if (!inScope)
    throw new ValidationError([
      {
        field: 'sites',
        rule: `this channel is bound to ${scope.consoles.join(', ')}${scope.site ? `, site ${scope.site}` : ''}: a rollout here cannot reach ${site.console}/${site.site}`,
      },
    ]);
}
