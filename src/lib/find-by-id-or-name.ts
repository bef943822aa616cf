import { ResourceNotFoundError, ValidationError } from '../errors.js';

/**
 * Finds an object by id, or by name (case-insensitive) when exactly one object carries it.
 * A name shared by several objects is refused rather than guessed.
 */
export function findByIdOrName<T>(
  items: readonly T[],
  ref: string,
  how: {
    resource: string;
    field: string;
    /** The id shown to the user (in the ambiguity message). */
    id(item: T): string;
    name(item: T): string;
    /** When an object answers to more than its shown id (an Integration UUID, a MAC in another notation). */
    matchesId?(item: T, wanted: string): boolean;
  },
): T {
  const wanted = ref.trim();
  const matchesId = how.matchesId ?? ((item: T, w: string) => how.id(item) === w);
  const byId = items.find((item) => matchesId(item, wanted));
  if (byId) return byId;
  const byName = items.filter((item) => how.name(item).toLowerCase() === wanted.toLowerCase());
  if (byName.length === 1 && byName[0] !== undefined) return byName[0];
  if (byName.length > 1) {
    throw new ValidationError([
      {
        field: how.field,
        rule: `"${ref}" names ${byName.length} ${plural(how.resource)}; use an id (${byName.map(how.id).join(', ')})`,
      },
    ]);
  }
  throw new ResourceNotFoundError(how.resource, ref);
}

function plural(noun: string): string {
  return /[^aeiou]y$/.test(noun) ? `${noun.slice(0, -1)}ies` : `${noun}s`;
}
