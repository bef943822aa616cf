/** Levenshtein distance between two strings (insertions, deletions and substitutions cost 1). */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current.push(
        Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost),
      );
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

const words = (name: string) => name.split(/[_\s-]+/).filter((w) => w.length > 2);

/**
 * How close a typed name is to a known one, lower is closer; undefined when it is not close.
 * A typo (a few edits), a prefix or a part of the name (`vlan` → `vlan_id`, `zone_id` →
 * `firewall_zone_id`) count as close; sharing only a word (`thing_read` → `read_thing`) less so.
 */
function closeness(typed: string, known: string): number | undefined {
  if (typed === known) return 0;
  const allowed = typed.length <= 4 ? 1 : typed.length <= 8 ? 2 : 3;
  const distance = editDistance(typed, known);
  if (distance <= allowed) return distance;
  if (typed.length >= 3 && (known.includes(typed) || typed.includes(known))) return allowed + 1;
  const shared = words(typed).filter((w) => words(known).includes(w)).length;
  return shared > 0 ? 10 - Math.min(shared, 5) : undefined;
}

/**
 * The known names closest to a typed one, closest first, at most `max`: shared by unknown tool
 * names and unknown argument names. Close matches (typos, prefixes) hide merely related ones.
 */
export function suggestNames(typed: string, known: readonly string[], max = 3): string[] {
  const wanted = typed.toLowerCase();
  const scored = known
    .map((name, index) => ({ name, index, score: closeness(wanted, name.toLowerCase()) }))
    .filter((s): s is { name: string; index: number; score: number } => s.score !== undefined)
    .sort((a, b) => a.score - b.score || a.index - b.index);
  const best = scored[0]?.score;
  if (best === undefined) return [];
  // A typo or prefix match is what the user meant; word-sharing names would only be noise beside it.
  const pool = best < 5 ? scored.filter((s) => s.score < 5) : scored;
  return pool.slice(0, max).map((s) => s.name);
}
