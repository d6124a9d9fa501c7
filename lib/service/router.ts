// The route table: a path's segments to the route that answers each method. A static segment wins
// over a parameter (`:name`), a parameter over the catch-all (`*`, the rest of the path); a request
// tries its own method first (a GET that asks for a WebSocket upgrade tries the WebSocket route
// before it), then a route for any method. A trailing slash is ignored.

interface Node<T> {
  fixed: Map<string, Node<T>>
  param?: { name: string; node: Node<T> }
  rest?: { name: string; methods: Map<string, T> }
  methods: Map<string, T>
}

export interface Match<T> {
  route: T
  /** The parameters by name, decoded; the catch-all under its own name. */
  params: Record<string, string>
}

const node = <T>(): Node<T> => ({ fixed: new Map(), methods: new Map() })

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}

export class Router<T> {
  private root = node<T>()

  /** Adds `route` for `method` at `path` (segments, `:name`, a final `*` named `rest`). */
  add(method: string, path: string, route: T, rest = "*"): void {
    let at = this.root
    for (const segment of path.split("/").filter(Boolean)) {
      if (segment === "*") {
        at.rest ??= { name: rest, methods: new Map() }
        at.rest.methods.set(method, route)
        return
      }
      if (segment.startsWith(":")) {
        at.param ??= { name: segment.slice(1), node: node() }
        at = at.param.node
      } else {
        if (!at.fixed.has(segment)) at.fixed.set(segment, node())
        at = at.fixed.get(segment)!
      }
    }
    at.methods.set(method, route)
  }

  /** The route at `pathname` of the first of `methods` that has one there. */
  find(methods: string[], pathname: string): Match<T> | undefined {
    const segments = pathname.split("/").slice(1)
    if (segments.length > 1 && segments.at(-1) === "") segments.pop()
    for (const method of methods) {
      const params: Record<string, string> = {}
      const route = this.walk(this.root, segments, 0, method, params)
      if (route) return { route, params }
    }
    return undefined
  }

  private walk(
    at: Node<T>,
    segments: string[],
    i: number,
    method: string,
    params: Record<string, string>,
  ): T | undefined {
    if (i === segments.length) return at.methods.get(method)
    const segment = segments[i]!
    const fixed = at.fixed.get(segment)
    const found = fixed && this.walk(fixed, segments, i + 1, method, params)
    if (found) return found
    if (at.param && segment !== "") {
      const route = this.walk(at.param.node, segments, i + 1, method, params)
      if (route) {
        params[at.param.name] = decode(segment)
        return route
      }
    }
    const rest = at.rest?.methods.get(method)
    if (rest) params[at.rest!.name] = decode(segments.slice(i).join("/"))
    return rest
  }
}
