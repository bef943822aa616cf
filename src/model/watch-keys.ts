/**
 * Where the watcher keeps a watched site's incidents in the bot's data: written by watch/, read by
 * the rollout's health watch in changes/ too, so the key lives below both.
 */

/** The store key of one watched site's incidents and last poll, by its scope (`scopeOf`). */
export const stateKey = (scope: string): string => `watch:state:${scope}`;

/** What the store keys of one watched site are made from: the site, behind its console in a fleet. */
export const scopeOf = (o: { site: string; console?: string }): string =>
  o.console === undefined ? o.site : `${o.console}/${o.site}`;
