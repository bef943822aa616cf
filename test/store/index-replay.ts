import type { ChangeRequest, ChangeState } from '../../src/model/change-request.js';

/** A random step of an index test: a new pending request, or a move of an existing one to `to`. */
export type IndexStep<Create> =
  | ({ kind: 'create' } & Create)
  | { kind: 'move'; pick: number; to: ChangeState };

/**
 * Plays `steps` on `index` as the file store does (put with the record before and after) and on a
 * plain map of every request, which the index must agree with; the map. Ids are `cr_000`, `cr_001`, …
 */
export function replay<Create>(
  steps: IndexStep<Create>[],
  index: { put(before: ChangeRequest | undefined, after: ChangeRequest): void },
  create: (id: string, step: { kind: 'create' } & Create) => ChangeRequest,
): Map<string, ChangeRequest> {
  const requests = new Map<string, ChangeRequest>();
  let n = 0;
  for (const step of steps) {
    if (step.kind === 'create') {
      const id = `cr_${String(n++).padStart(3, '0')}`;
      const created = create(id, step);
      requests.set(id, created);
      index.put(undefined, created);
    } else if (requests.size > 0) {
      const ids = [...requests.keys()];
      const id = ids[step.pick % ids.length] as string;
      const before = requests.get(id) as ChangeRequest;
      const after = { ...before, state: step.to };
      requests.set(id, after);
      index.put(before, after);
    }
  }
  return requests;
}
