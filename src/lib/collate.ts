/**
 * Name order for sorting: the order of String.prototype.localeCompare (same default locale and
 * options) at a fraction of its cost, through one Intl.Collator. At 50,000 clients, idle ones all
 * tie on rate and the tie-break with localeCompare ran for seconds.
 *
 * The collator is made on the first comparison, not when the module loads (idle memory):
 * the first use of ICU maps about 2.7 MiB of the node binary's ICU code and data into the process,
 * which an idle bot that has not sorted clients does not need.
 */
let collator: Intl.Collator | undefined;

/** Compares two names as localeCompare would. */
export function byName(a: string, b: string): number {
  collator ??= new Intl.Collator();
  return collator.compare(a, b);
}
