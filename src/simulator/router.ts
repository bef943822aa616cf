/** Path parameters captured by `:name` segments. */
export type Params = Readonly<Record<string, string>>;

/** The outcome of matching a method and a path. */
export type RouteMatch<H> =
  | { kind: 'found'; handler: H; params: Params }
  | { kind: 'method-not-allowed' }
  | { kind: 'not-found' };

interface RouteEntry<H> {
  method: string;
  segments: string[];
  handler: H;
}

function splitPath(path: string): string[] {
  return path.split('/').filter((segment) => segment !== '');
}

/** A tiny method + pattern router; the first registered match wins, so register literals first. */
export class Router<H> {
  readonly #routes: RouteEntry<H>[] = [];

  /** Registers `handler` for `method` on `pattern` (`/api/s/:site/rest/networkconf/:id`). */
  on(method: string, pattern: string, handler: H): this {
    this.#routes.push({ method: method.toUpperCase(), segments: splitPath(pattern), handler });
    return this;
  }

  /** Finds the handler for a request, telling a wrong method apart from an unknown path. */
  match(method: string, path: string): RouteMatch<H> {
    const segments = splitPath(path);
    let pathKnown = false;
    for (const route of this.#routes) {
      const params = matchSegments(route.segments, segments);
      if (!params) continue;
      if (route.method === method.toUpperCase()) return { kind: 'found', handler: route.handler, params };
      pathKnown = true;
    }
    return pathKnown ? { kind: 'method-not-allowed' } : { kind: 'not-found' };
  }
}

function matchSegments(pattern: readonly string[], actual: readonly string[]): Params | undefined {
  if (pattern.length !== actual.length) return undefined;
  const params: Record<string, string> = {};
  for (const [index, expected] of pattern.entries()) {
    const segment = actual[index] ?? '';
    if (expected.startsWith(':')) {
      try {
        params[expected.slice(1)] = decodeURIComponent(segment);
      } catch {
        return undefined;
      }
    } else if (expected !== segment) {
      return undefined;
    }
  }
  return params;
}
