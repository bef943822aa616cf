/**
 * `use` at the interactive console: where the following commands go, a console and one of its
 * sites, like a Slack channel's binding. Every command after it gets them unless it names its
 * own (`console=`, `site=`); the prompt shows them. A name that is not served changes nothing.
 */

import { z } from 'zod';
import type { ScopeArgs } from '../commands/aliases.js';
import { ValidationError } from '../errors.js';
import { suggestNames } from '../lib/suggest.js';
import type { ConsolePort } from '../tools/core/context.js';
import type { ToolRegistry } from '../tools/core/registry.js';

/** Where the console's commands go: undefined parts are the configured defaults. */
export interface Place {
  console: string | undefined;
  site: string | undefined;
}

export const NOWHERE: Place = { console: undefined, site: undefined };

/** The interactive prompt: `net> `, or `net berlin/lab> ` once `use` picked a place. */
export function promptOf(place: Place): string {
  const shown = [place.console, place.site].filter((part) => part !== undefined).join('/');
  return shown === '' ? 'net> ' : `net ${shown}> `;
}

/** The names `use` may pick a console from (a context without consoles serves one, `default`). */
function consoleNames(consoles: ConsolePort | undefined): string[] {
  return consoles?.list().map((each) => each.name) ?? ['default'];
}

/** The part of an Integration site record `use` reads: the classic name it stands for. */
const siteRecord = z.looseObject({ internalReference: z.string() });

/**
 * The refusal of a console not served, in the consoles' own words (with the nearest names): the
 * port refuses the name; a context without consoles names its one.
 */
function unknownConsole(
  name: string,
  consoles: ConsolePort | undefined,
  names: readonly string[],
): ValidationError {
  try {
    consoles?.gateway(name);
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
  return new ValidationError([
    { field: 'console', rule: `no console is named ${name} (this bot serves ${names.join(', ')})` },
  ]);
}

/**
 * The classic site names of a console: those its consoles file entry lists, else those it
 * answers with. Undefined when it cannot be asked (down, or no Integration API): then the site is
 * taken unchecked, and the command that uses it meets the console's own answer.
 */
async function sitesOf(
  consoles: ConsolePort | undefined,
  console: string | undefined,
): Promise<string[] | undefined> {
  const port = consoles;
  if (port === undefined) return undefined;
  const name = console ?? (port.fleet ? undefined : port.list()[0]?.name);
  if (name === undefined) return undefined;
  const listed = port.list().find((each) => each.name === name)?.sites;
  if (listed !== undefined) return [...listed];
  try {
    const { items } = await port.gateway(name).integrationGlobalList('sites', siteRecord);
    return items.map((site) => site.internalReference);
  } catch {
    return undefined;
  }
}

function unknownSite(site: string, where: string, known: readonly string[]): ValidationError {
  const near = suggestNames(site, known);
  const hint = near.length > 0 ? `; did you mean ${near.join(', ')}?` : '';
  return new ValidationError([
    { field: 'site', rule: `${where} has no site ${site} (it has ${known.join(', ')})${hint}` },
  ]);
}

function unknownPlace(word: string, consoles: readonly string[], current: string, sites: readonly string[]) {
  const near = suggestNames(word, [...consoles, ...sites]);
  const hint = near.length > 0 ? `; did you mean ${near.join(', ')}?` : '';
  return new ValidationError([
    {
      field: 'use',
      rule: `no console is named ${word} (this bot serves ${consoles.join(', ')}) and ${current} has no site ${word} (it has ${sites.join(', ')})${hint}`,
    },
  ]);
}

/** What `use …` answers: the new place and the line saying so (with a note when a site went unchecked). */
export interface UseOutcome {
  place: Place;
  text: string;
}

function describe(place: Place, defaultSite: string): string {
  const console = place.console === undefined ? '' : `console ${place.console}, `;
  return `using ${console}site ${place.site ?? `${defaultSite} (the default)`}.`;
}

/**
 * `use` (shows the place), `use <console>/<site>`, `use <console>` (its default site) or
 * `use <site>` (of the console in use, or the only one). Throws ValidationError naming the console
 * or site not served, with the nearest names; the place is then unchanged.
 */
export async function usePlace(
  words: readonly string[],
  current: Place,
  consoles: ConsolePort | undefined,
  defaultSite: string,
): Promise<UseOutcome> {
  const [target, extra] = words;
  if (target === undefined) return { place: current, text: describe(current, defaultSite) };
  if (extra !== undefined)
    throw new ValidationError([
      { field: 'use', rule: 'takes one word: <console>/<site>, <console> or <site>' },
    ]);
  const names = consoleNames(consoles);
  const fleet = consoles?.fleet === true;
  const slash = target.indexOf('/');
  let console: string | undefined;
  let site: string | undefined;
  if (slash >= 0) {
    console = target.slice(0, slash);
    site = target.slice(slash + 1) || undefined;
    if (!names.includes(console)) throw unknownConsole(console, consoles, names);
  } else if (names.includes(target) && (fleet || target !== defaultSite)) {
    console = target;
  } else if (fleet && current.console === undefined) {
    // A fleet's site belongs to a console: without one in use, the word must name a console.
    const error = unknownConsole(target, consoles, names);
    throw new ValidationError(
      error.issues.map((issue) => ({ ...issue, rule: `${issue.rule} (a site: use <console>/${target})` })),
    );
  } else {
    console = current.console;
    site = target;
  }
  // A single console is not named in the prompt: there is nothing else it could be.
  const shownConsole = fleet ? console : undefined;
  if (site !== undefined) {
    const known = await sitesOf(consoles, console);
    if (known !== undefined && !known.includes(site)) {
      // One word in a fleet may have meant a console as well as a site of the one in use.
      if (fleet && slash < 0) throw unknownPlace(site, names, console ?? '', known);
      throw unknownSite(site, console ?? 'the console', known);
    }
    const place = { console: shownConsole, site };
    const note =
      known === undefined ? ` (not checked: ${console ?? 'the console'} did not list its sites)` : '';
    return { place, text: `${describe(place, defaultSite).slice(0, -1)}${note}.` };
  }
  const place = { console: shownConsole, site: undefined };
  return { place, text: describe(place, defaultSite) };
}

/**
 * A call's arguments with the place filled in where the call names none. Fleet-wide reads
 * (list_consoles, find_client) keep `console` as their own filter: `use` does not narrow them.
 */
export function scopeToPlace(place: Place, registry: ToolRegistry): ScopeArgs {
  return (tool, args) => {
    if (place.console === undefined && place.site === undefined) return args;
    const infos = registry.argumentsOf(tool);
    if (infos.some((info) => info.name === 'console')) return args;
    const scoped = { ...args };
    if (place.console !== undefined && (scoped.console === undefined || scoped.console === ''))
      scoped.console = place.console;
    const takesSite = infos.some((info) => info.name === 'site_id');
    if (takesSite && place.site !== undefined && scoped.site_id === undefined && scoped.site === undefined)
      scoped.site_id = place.site;
    return scoped;
  };
}
