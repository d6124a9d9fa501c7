// Who may call a route beyond the browser guard, declared once in its handler file
// (`export const access = "cluster"`): the app checks it before the handler runs, and /openapi writes
// it as the route's security. A route that declares nothing is open to whoever passes the guard.
// While sign-in is on, a request without the route's own credential may still come in as a user
// whose role the route's `role` allows (an admin exporting a stack's environment, Prometheus with an
// API token); `proves` says whether passing the check showed a credential at all. A server of the
// cluster calling another with the cluster token (a copy, its clean-up, a move) is the cluster, with
// an admin's role: the token already imports and starts stacks on every server.
import { requireBearer } from "../cluster/bearer.ts"
import { clusterSecurity } from "../cluster/schemas.ts"
import { requireMetricsAccess } from "../metrics/metrics.ts"
import { metricsSecurity } from "../metrics/schemas.ts"
import type { Ctx } from "./context.ts"
import { HttpError } from "../http/http-error.ts"
import type { RouteRole } from "../auth/roles.ts"
import { TOKEN_PREFIX } from "../auth/tokens.ts"
import type { Identity } from "../auth/identity.ts"

const CLUSTER: Identity = { user: "cluster", role: "admin", source: "cluster" }

/** Whether the request carries the cluster token (never an API token's shape); marks it as the cluster's. */
async function fromCluster(ctx: Ctx, request: Request): Promise<boolean> {
  const given = /^Bearer\s+(\S+)/i.exec(request.headers.get("authorization") ?? "")?.[1]
  if (!given || given.startsWith(TOKEN_PREFIX)) return false
  const ok = await requireBearer(ctx, request).then(() => true, () => false)
  if (ok) ctx.auth.mark(request, { identity: CLUSTER })
  return ok
}

interface Rule {
  /** Throws the route's 401 (or 404) when the request may not call it. */
  check(ctx: Ctx, request: Request): void | Promise<void>
  /** The route's OpenAPI security requirements. */
  security: Record<string, string[]>[]
  /** Passing the check showed a credential (else, while sign-in is on, the caller must be a user too). */
  proves(ctx: Ctx): boolean
}

export const ACCESS = {
  /** `Authorization: Bearer <cluster token>`: the routes one server calls on another. */
  cluster: { check: (ctx, request) => requireBearer(ctx, request), security: clusterSecurity, proves: () => true },
  /** `Authorization: Bearer <SVC_METRICS_TOKEN>` when one is set, and metrics on: what a scraper reads. */
  metrics: { check: (ctx, request) => requireMetricsAccess(ctx, request), security: metricsSecurity, proves: (ctx) => !!ctx.config.metricsToken },
} satisfies Record<string, Rule>

export type Access = keyof typeof ACCESS

/**
 * Lets a request through to a route that needs `role` and declares `access`, or throws its 401, 403
 * (or 404). `stack` is the stack the route names, for a caller limited to some stacks.
 */
export async function admit(ctx: Ctx, route: { role?: RouteRole; access?: Access }, request: Request, peer: string | undefined, stack?: string): Promise<void> {
  const rule = route.access && ACCESS[route.access]
  if (!ctx.auth.enabled) return void (await rule?.check(ctx, request))
  if (await fromCluster(ctx, request)) return
  if (rule) {
    try {
      await rule.check(ctx, request)
      if (rule.proves(ctx)) return
    } catch (err) {
      if (!(err instanceof HttpError && err.status === 401)) throw err
    }
  }
  // A route that forgot its role is an admin's.
  await ctx.auth.admit(request, peer, route.role ?? "admin", stack)
}
