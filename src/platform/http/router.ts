/**
 * Path routing: a segment trie per path shape. Static segments win over `:params` at the same depth,
 * so `/objects/types` and `/objects/:id` coexist. Matching allocates only the params object.
 *
 * Terminology: a *route* is method + pattern + access + handler; a *match* is a route plus its
 * decoded path params.
 */
export interface Match<R> {
  route: R;
  params: Record<string, string>;
}

/** What `find` reports: a match or nothing (a path known under other methods is not found either: 404). */
export type Lookup<R> = { kind: 'match'; match: Match<R> } | { kind: 'none' };

interface Entry<R> {
  route: R;
  /** Names of the route's params, in path order (routes sharing a node may name them differently). */
  names: string[];
}

interface Node<R> {
  statics: Map<string, Node<R>>;
  param: Node<R> | null;
  routes: Map<string, Entry<R>>;
}

const newNode = <R>(): Node<R> => ({ statics: new Map(), param: null, routes: new Map() });

export class Router<R> {
  private readonly root: Node<R> = newNode();
  private readonly all: Array<{ method: string; pattern: string; route: R }> = [];

  /** Registers `route` for `method` and `pattern` (`/api/v1/runs/:id`). Duplicate registration throws. */
  add(method: string, pattern: string, route: R): void {
    let node = this.root;
    const names: string[] = [];
    for (const segment of split(pattern)) {
      if (segment.startsWith(':')) {
        names.push(segment.slice(1));
        node.param ??= newNode();
        node = node.param;
      } else {
        let next = node.statics.get(segment);
        if (!next) {
          next = newNode();
          node.statics.set(segment, next);
        }
        node = next;
      }
    }
    const upper = method.toUpperCase();
    if (node.routes.has(upper)) throw new Error(`route ${upper} ${pattern} registered twice`);
    node.routes.set(upper, { route, names });
    this.all.push({ method: upper, pattern, route });
  }

  /** Finds the route for a method and a raw (still percent-encoded) path. */
  find(method: string, path: string): Lookup<R> {
    const segments = split(path);
    const wanted = method === 'HEAD' ? ['HEAD', 'GET'] : [method];
    const values: string[] = [];
    const node = walk(this.root, segments, 0, values, (n) => wanted.some((m) => n.routes.has(m)));
    const entry = node && wanted.map((m) => node.routes.get(m)).find((e) => e !== undefined);
    if (!node || !entry) return { kind: 'none' };
    const params: Record<string, string> = {};
    entry.names.forEach((name, i) => {
      params[name] = safeDecode(values[i] ?? '');
    });
    return { kind: 'match', match: { route: entry.route, params } };
  }

  /** Every registered route, in registration order (for docs and the OpenAPI document). */
  routes(): ReadonlyArray<{ method: string; pattern: string; route: R }> {
    return this.all;
  }
}

/** Depth-first: a static segment first, then the parameter branch; `values` collects param text. */
function walk<R>(
  node: Node<R>,
  segments: string[],
  index: number,
  values: string[],
  accept: (node: Node<R>) => boolean,
): Node<R> | null {
  if (index === segments.length) return accept(node) ? node : null;
  const segment = segments[index] as string;
  const fixed = node.statics.get(segment);
  if (fixed) {
    const found = walk(fixed, segments, index + 1, values, accept);
    if (found) return found;
  }
  if (node.param && segment !== '') {
    values.push(segment);
    const found = walk(node.param, segments, index + 1, values, accept);
    if (found) return found;
    values.pop();
  }
  return null;
}
function split(path: string): string[] {
  const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  return trimmed.split('/').slice(1);
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
