// Who may call a route beyond the browser guard, declared once in its handler file
// (`export const access = "cluster"`): the app checks it before the handler runs, and /openapi writes
// it as the route's security. A route that declares nothing is open to whoever passes the guard.
// While sign-in is on, a request without the route's own credential may still come in as a user
// whose role the route's `role` allows (an admin exporting a stack's environment, Prometheus with an
// API token); `proves` says whether passing the check showed a credential at all. A server of the
// cluster calling another with the cluster token (a copy, its clean-up, a move) is the cluster, with
// an admin's role: the token already imports and starts stacks on every server. A call the control
// plane's gateway forwarded carries its proof (cluster/proof.ts) instead of a credential: a member
// with sign-in on takes it as the caller signed in on the control plane, with their role there.
import { clusterSecurity, clusterToken, requireBearer } from "../cluster/bearer.ts"
import { PROOF_HEADER, proofs, signProof, type ProofSigner } from "../cluster/proof.ts"
import { metricsSecurity, requireMetricsAccess } from "../metrics/metrics.ts"
import type { Ctx } from "./context.ts"
import { isDomainError, unauthenticated } from "../errors/errors.ts"
import { isRole, type RouteRole } from "../auth/roles.ts"
import { TOKEN_PREFIX } from "../auth/tokens.ts"
import type { Identity } from "../auth/identity.ts"

const CLUSTER: Identity = { user: "cluster", role: "admin", source: "cluster" }

/** Whether the request carries the cluster token (never an API token's shape); marks it as the cluster's. */
async function fromCluster(ctx: Ctx, request: Request): Promise<boolean> {
  const given = /^Bearer\s+(\S+)/i.exec(request.headers.get("authorization") ?? "")?.[1]
  if (!given || given.startsWith(TOKEN_PREFIX)) return false
  const ok = await requireBearer(ctx, request).then(
    () => true,
    () => false,
  )
  if (ok) ctx.auth.mark(request, { identity: CLUSTER })
  return ok
}

/**
 * A call the control plane's gateway forwarded (X-Hm-Proof), on a member: the caller it names is
 * marked as coming through the control plane, or it is refused (401 saying why; a public route is
 * called as without a credential). Nothing without the header, nor on a server that is no member
 * (a control plane's gateway drops a client's copy of the header).
 */
async function fromControlPlane(ctx: Ctx, request: Request, peer: string | undefined, need: RouteRole): Promise<void> {
  const header = request.headers.get(PROOF_HEADER)
  if (!header) return
  const m = await ctx.cluster.read()
  if (m?.role !== "member") return
  try {
    if (!m.control_plane_id)
      throw unauthenticated(
        "the gateway's proof is refused: this member does not know its control plane's server_id; join it again",
      )
    const url = new URL(request.url)
    const who = proofs.check(header, request.method, `${url.pathname}${url.search}`, {
      token: m.token,
      node: ctx.serverId,
      controlPlane: m.control_plane_id,
    })
    if (!isRole(who.role)) throw unauthenticated("the gateway's proof is refused: it names no role")
    ctx.auth.mark(request, {
      identity: { user: who.user, role: who.role, source: "cluster", via: who.controlPlane },
      peer,
    })
  } catch (err) {
    if (need !== "public") throw err
  }
}

/**
 * What the gateway signs each forwarded call with: the caller signed in here and their role, under
 * the cluster token; none while sign-in is off here (a node with sign-in on then refuses the call),
 * and none for a caller limited to some stacks (a proof names a role only, which would widen them;
 * the gateway's route refuses them before).
 */
export async function gatewaySigner(ctx: Ctx, request: Request): Promise<ProofSigner | undefined> {
  const identity = ctx.auth.who(request)
  const token = await clusterToken(ctx.config.dataDir)
  if (!identity || identity.stacks || !token) return undefined
  return (method, path, node) =>
    signProof(token, {
      method,
      path,
      who: { controlPlane: ctx.serverId, node, user: identity.user, role: identity.role },
    })
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
  metrics: {
    check: (ctx, request) => requireMetricsAccess(ctx, request),
    security: metricsSecurity,
    proves: (ctx) => !!ctx.config.metricsToken,
  },
} satisfies Record<string, Rule>

export type Access = keyof typeof ACCESS

/**
 * Lets a request through to a route that needs `role` and declares `access`, or throws its 401, 403
 * (or 404). `stack` is the stack the route names, for a caller limited to some stacks.
 */
export async function admit(
  ctx: Ctx,
  route: { role?: RouteRole; access?: Access },
  request: Request,
  peer: string | undefined,
  stack?: string,
): Promise<void> {
  const rule = route.access && ACCESS[route.access]
  if (!ctx.auth.enabled) return void (await rule?.check(ctx, request))
  if (await fromCluster(ctx, request)) return
  const need = route.role ?? "admin"
  await fromControlPlane(ctx, request, peer, need)
  if (rule) {
    try {
      await rule.check(ctx, request)
      if (rule.proves(ctx)) return
    } catch (err) {
      if (!isDomainError(err, "unauthenticated")) throw err
    }
  }
  // A route that forgot its role is an admin's.
  await ctx.auth.admit(request, peer, need, stack)
}
