/** Where a node sits in the uplink tree. */
export interface Placement {
  /** The upstream node after cycles are broken; null for a root. */
  parent: string | null;
  /** Links between the node and its root: 0 for a root, 1 for a node directly on it, … */
  level: number;
}

/**
 * Places every node of an uplink forest by walking each chain once (memoised, so the cost is
 * linear and the input order never matters). `parentOf` maps every node to its reported parent;
 * a parent that is not itself a key is unknown and makes the node a root. A cycle (A→B→A, or a
 * device naming itself) is broken at its smallest id, which becomes a root: the choice depends
 * only on the cycle's members, so shuffled input gives the same result.
 */
export function placeNodes(parentOf: ReadonlyMap<string, string | undefined>): Map<string, Placement> {
  const placed = new Map<string, Placement>();
  const cut = new Set<string>();
  const parent = (id: string): string | undefined => {
    if (cut.has(id)) return undefined;
    const reported = parentOf.get(id);
    return reported !== undefined && parentOf.has(reported) ? reported : undefined;
  };

  for (const start of parentOf.keys()) {
    if (placed.has(start)) continue;
    // Walk up until a root or an already placed node; restart after breaking a cycle.
    for (;;) {
      const path: string[] = [];
      const onPath = new Map<string, number>();
      let current: string | undefined = start;
      let baseLevel = -1;
      let cycleAt = -1;
      while (current !== undefined) {
        const known = placed.get(current);
        if (known) {
          baseLevel = known.level;
          break;
        }
        const seen = onPath.get(current);
        if (seen !== undefined) {
          cycleAt = seen;
          break;
        }
        onPath.set(current, path.length);
        path.push(current);
        current = parent(current);
      }
      if (cycleAt >= 0) {
        let root = path[cycleAt] ?? start;
        for (let i = cycleAt + 1; i < path.length; i++) {
          const member = path[i];
          if (member !== undefined && member < root) root = member;
        }
        cut.add(root);
        continue;
      }
      for (let i = path.length - 1; i >= 0; i--) {
        const id = path[i];
        if (id === undefined) continue;
        baseLevel += 1;
        placed.set(id, { parent: parent(id) ?? null, level: baseLevel });
      }
      break;
    }
  }
  return placed;
}

/** The spec's `uplink_depth` (§2.5: "0 means directly connected to the gateway"): a root and its direct children are 0. */
export function uplinkDepth(level: number): number {
  return level > 0 ? level - 1 : 0;
}
