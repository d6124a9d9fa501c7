// Who may call a route beyond the browser guard, declared once in its handler file
// (`export const access = "cluster"`): the app checks it before the handler runs, and /openapi writes
// it as the route's security. A route that declares nothing is open to whoever passes the guard.
import { requireBearer } from "../cluster/bearer.ts"
import { clusterSecurity } from "../cluster/schemas.ts"
import { requireMetricsAccess } from "../metrics/metrics.ts"
import { metricsSecurity } from "../metrics/schemas.ts"
import type { Ctx } from "./context.ts"

interface Rule {
  /** Throws the route's 401 (or 404) when the request may not call it. */
  check(ctx: Ctx, request: Request): void | Promise<void>
  /** The route's OpenAPI security requirements. */
  security: Record<string, string[]>[]
}

export const ACCESS = {
  /** `Authorization: Bearer <cluster token>`: the routes one server calls on another. */
  cluster: { check: (ctx, request) => requireBearer(ctx, request), security: clusterSecurity },
  /** `Authorization: Bearer <SVC_METRICS_TOKEN>` when one is set, and metrics on: what a scraper reads. */
  metrics: { check: (ctx, request) => requireMetricsAccess(ctx, request), security: metricsSecurity },
} satisfies Record<string, Rule>

export type Access = keyof typeof ACCESS
