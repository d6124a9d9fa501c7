// This server's place in a cluster, kept in cluster.json (sealed, mode 0600) under the data directory. A
// control plane holds the token it minted; a member holds the token it joined with, the control
// plane's URL and server_id and the name it was registered under; without the file a server is in
// no cluster.
import { randomBytes } from "node:crypto"
import { clusterFile } from "./bearer.ts"
import { readJson, removeDurably, writeSealedJson } from "../data/datadir.ts"
import { conflict, invalid } from "../errors/errors.ts"
import { errorOf, NodeClient, refusal } from "./node-client.ts"
import { link, type LinkTarget } from "./link.ts"
import { CLOSE, tunnels } from "./tunnel.ts"

export type Role = "control-plane" | "member" | "none"

export interface Membership {
  role: "control-plane" | "member"
  token: string
  /** Member only: where its control plane answers. */
  control_plane_url?: string
  /** Member only: the name its control plane registered it under. */
  name?: string
  /** Member only: its control plane's server_id, which the gateway's proofs name. */
  control_plane_id?: string
  /** Member only: "outbound" when it holds a connection to its control plane instead of being called at a URL. */
  connect?: "outbound"
  since: string
}

export class Cluster {
  constructor(
    private readonly dataDir: string,
    private readonly now: () => number = Date.now,
  ) {}

  read(): Promise<Membership | undefined> {
    return readJson<Membership | undefined>(clusterFile(this.dataDir), undefined)
  }

  async role(): Promise<Role> {
    return (await this.read())?.role ?? "none"
  }

  /** A new cryptographically random token; the previous one stops working; this server becomes the control plane. */
  mint(): string {
    const token = randomBytes(32).toString("base64url")
    this.save({ role: "control-plane", token })
    tunnels.closeAll(CLOSE.unauthorized, "unauthorized")
    return token
  }

  /** Writes the membership; `since` is now unless given (a failed join puts back what was). */
  save(m: Omit<Membership, "since"> & { since?: string }): void {
    writeSealedJson(clusterFile(this.dataDir), { since: new Date(this.now()).toISOString(), ...m })
  }

  /** Back to no cluster: the token is forgotten. */
  forget(): void {
    removeDurably(clusterFile(this.dataDir))
    tunnels.closeAll(CLOSE.unauthorized, "unauthorized")
  }
}

/** A server's base URL, normalised: http or https, no query, no trailing slash. */
export function baseUrl(input: string, field: string): string {
  let url: URL
  try {
    url = new URL(input)
  } catch {
    throw invalid(`body.${field}: not a URL`, "invalid_request")
  }
  if (!/^https?:$/.test(url.protocol) || url.search || url.hash || url.username)
    throw invalid(`body.${field}: must be an http(s) URL without query, fragment or credentials`, "invalid_request")
  return url.href.replace(/\/+$/, "")
}

/** What joining and leaving read and write: this server's membership, its id, its port and the call deadline. */
export interface Member {
  cluster: Cluster
  serverId: string
  config: { addr: { port: number }; probeTimeoutMs: number }
}

const controlPlane = (url: string, token?: string) =>
  new NodeClient(url, { token, unreachableCode: "server_unreachable" })

export interface JoinRequest {
  control_plane_url: string
  token: string
  name?: string
  advertise?: string
  connect?: "inbound" | "outbound"
}

/**
 * Registers this server with a control plane and makes it a member holding the token. A control
 * plane does not join another cluster (it leaves its own first); a member may join its own control
 * plane again (a new token, name or address), not another one.
 */
export async function join(ctx: Member, req: JoinRequest) {
  const before = await ctx.cluster.read()
  if (before?.role === "control-plane")
    throw conflict(
      "this server is a control plane; leave its cluster (DELETE /api/cluster/membership) before joining another",
      "is_control_plane",
    )
  const cp = baseUrl(req.control_plane_url, "control_plane_url")
  if (before?.role === "member" && before.control_plane_url !== cp)
    throw conflict(
      `this server is a member of ${before.control_plane_url}; leave it (DELETE /api/cluster/membership) before joining another`,
      "already_member",
    )
  const undo = () => (before ? ctx.cluster.save(before) : ctx.cluster.forget())
  const connect = req.connect === "outbound" ? ({ connect: "outbound" } as const) : {}
  // Saved first: the control plane probes this server with the token before it answers.
  ctx.cluster.save({ role: "member", token: req.token, control_plane_url: cp, ...connect })
  const body = {
    token: req.token,
    server_id: ctx.serverId,
    name: req.name,
    advertise: req.advertise,
    port: ctx.config.addr.port,
    ...connect,
  }
  let node: { name: string; url: string; status: string; error: string | null; control_plane_id?: string }
  try {
    // The control plane answers after its own probe of this server: give it that long twice over.
    const res = await controlPlane(cp).fetch("/api/cluster/register", {
      method: "POST",
      json: body,
      timeoutMs: 3 * ctx.config.probeTimeoutMs,
    })
    if (!res.ok) throw await refusal(res, "the control plane refused", "join_refused")
    node = await res.json()
  } catch (err) {
    undo()
    throw err
  }
  ctx.cluster.save({
    role: "member",
    token: req.token,
    control_plane_url: cp,
    name: node.name,
    control_plane_id: node.control_plane_id,
    ...connect,
  })
  link.wake()
  if (req.connect === "outbound") {
    const online = await link.connected(3 * ctx.config.probeTimeoutMs)
    node = {
      ...node,
      status: online ? "online" : "offline",
      error: online ? null : (link.state.error ?? "no connection yet"),
    }
  }
  return {
    role: "member",
    control_plane_url: cp,
    node: { name: node.name, url: node.url, status: node.status, error: node.error },
  }
}

/**
 * Leaves the cluster. A member asks its control plane to drop its entry, then forgets the
 * membership even when the control plane cannot be reached; a control plane retires its token
 * (its members turn `unauthorized`; the registry stays).
 */
export async function leave(ctx: Member): Promise<{ left: boolean; removed: boolean; error: string | null }> {
  const m = await ctx.cluster.read()
  if (!m) return { left: false, removed: false, error: "this server is in no cluster" }
  let removed = false
  let error: string | null = null
  if (m.role === "member") {
    const path = `/api/nodes/${encodeURIComponent(m.name ?? "")}?server_id=${encodeURIComponent(ctx.serverId)}`
    try {
      const res = await controlPlane(m.control_plane_url!, m.token).fetch(path, {
        method: "DELETE",
        timeoutMs: ctx.config.probeTimeoutMs,
      })
      removed = res.status === 200
      if (!removed)
        error = `the control plane did not drop this server: ${(await errorOf(res))?.message ?? `HTTP ${res.status}`}`
    } catch (err) {
      error = (err as Error).message
    }
  }
  ctx.cluster.forget()
  link.wake()
  return { left: true, removed, error }
}

/** Where a member that joined outbound connects to, and its own API the streams are carried out on. */
export async function linkTarget(
  ctx: Member & { config: { addr: { host: string } } },
): Promise<LinkTarget | undefined> {
  const m = await ctx.cluster.read()
  if (m?.role !== "member" || m.connect !== "outbound") return undefined
  const host =
    ctx.config.addr.host === "0.0.0.0" || !ctx.config.addr.host
      ? "127.0.0.1"
      : ctx.config.addr.host === "::"
        ? "::1"
        : ctx.config.addr.host
  return {
    controlPlaneUrl: m.control_plane_url!,
    token: m.token,
    serverId: ctx.serverId,
    local: `http://${host.includes(":") ? `[${host}]` : host}:${ctx.config.addr.port}`,
  }
}
