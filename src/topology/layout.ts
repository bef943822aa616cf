/** Horizontal distance between neighbours in a row, and vertical distance between rows (layout units ≈ px). */
export const LAYOUT_SPACING = { x: 160, y: 120 } as const;

/** Positions by node index: `x[i]`, `y[i]`; `y` grows downwards, one row per level. */
export interface Positions {
  x: Float64Array;
  y: Float64Array;
}

/**
 * A layered tree layout over nodes given by index: `parents[i]` is the index of node i's parent,
 * or -1 for a root. Every root is on the top row (in index order, so the gateway comes first),
 * each level one row lower, every parent centred over its first and last child. Leaves take
 * successive slots from left to right, so subtrees occupy disjoint column ranges and no two nodes
 * of a row are closer than `LAYOUT_SPACING.x`. Children keep index order. Linear time, typed arrays
 * and no recursion, so 50,000 nodes or a chain thousands deep cost little. A parent index out of
 * range makes the node a root; the parents must form a forest (placeNodes breaks cycles first).
 */
export function layeredLayout(parents: ArrayLike<number>): Positions {
  const n = parents.length;
  // Children in compressed form: the children of p are order[start[p] .. start[p + 1]).
  const start = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) {
    const p = parents[i] ?? -1;
    if (p >= 0 && p < n) start[p + 1] = (start[p + 1] ?? 0) + 1;
  }
  for (let i = 0; i < n; i++) start[i + 1] = (start[i + 1] ?? 0) + (start[i] ?? 0);
  const fill = start.slice(0, n);
  const order = new Int32Array(n);
  const roots: number[] = [];
  for (let i = 0; i < n; i++) {
    const p = parents[i] ?? -1;
    if (p >= 0 && p < n) {
      const at = fill[p] ?? 0;
      order[at] = i;
      fill[p] = at + 1;
    } else {
      roots.push(i);
    }
  }

  const x = new Float64Array(n);
  const y = new Float64Array(n);
  const level = new Int32Array(n);
  // Iterative post-order: a node is pushed once, expanded once, and placed when popped again.
  const stack = new Int32Array(n);
  const expanded = new Uint8Array(n);
  let top = 0;
  let slot = 0;
  for (let r = roots.length - 1; r >= 0; r--) stack[top++] = roots[r] ?? 0;
  while (top > 0) {
    const node = stack[top - 1] ?? 0;
    const first = start[node] ?? 0;
    const end = start[node + 1] ?? 0;
    if (expanded[node] === 0 && end > first) {
      expanded[node] = 1;
      for (let c = end - 1; c >= first; c--) {
        const child = order[c] ?? 0;
        level[child] = (level[node] ?? 0) + 1;
        stack[top++] = child;
      }
      continue;
    }
    top -= 1;
    y[node] = (level[node] ?? 0) * LAYOUT_SPACING.y;
    if (end > first) {
      x[node] = ((x[order[first] ?? 0] ?? 0) + (x[order[end - 1] ?? 0] ?? 0)) / 2;
    } else {
      x[node] = slot * LAYOUT_SPACING.x;
      slot += 1;
    }
  }
  return { x, y };
}
