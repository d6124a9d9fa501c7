// Copying a stack, volume data included, from one server of the cluster to another (or to this
// server under a new name). The control plane orchestrates: it reads the stack and both servers'
// inventories, plans (lib/copy/planner.ts), and unless the plan has blockers or it is a dry run, streams
// the images the destination lacks and each volume's data from source to destination, imports the
// stack there and optionally starts it. Anything that fails after the destination was written to is
// undone there; what cannot be undone is named in an error event. The source is only ever read.
// A node the copy goes to is given the credentials of the kept registries the stack's images need
// (sent with the cluster token, kept there as secrets; a registry the node's own admin keeps at the
// same address stays its own), so that it pulls them at start and on later updates.
import { STACK_LABEL } from "../engine/containers.ts"
import type { ContainerInspect, ContainerSummary, Engine } from "../engine/client.ts"
import type { EventBus } from "../engine/events.ts"
import type { Cluster } from "../cluster/membership.ts"
import { NodeClient } from "../cluster/node-client.ts"
import type { NodeRegistry } from "../cluster/nodes.ts"
import { conflict, isDomainError } from "../errors/errors.ts"
import type { PublishedPort } from "../stacks/model.ts"
import type { Stacks } from "../stacks/store.ts"
import { COPY_DEFAULTS, plan, type CopyFlags, type Plan, type SideFacts } from "./planner.ts"
import { exportModel, exportStack, importStack, type StackExport } from "./export.ts"
import { stackName } from "../stacks/name.ts"
import { importVolume, openVolume, type ImportResult, type VolumeArchive } from "../volumes/transfer.ts"
import type { RegistryCredentials, Registries } from "../registries/registries.ts"

export interface Inventory extends SideFacts {
  server_id: string
}

/** This server as a copy sees it: its engine and stacks, and, to reach nodes, the registry and the cluster token. */
export interface CopyDeps {
  engine: Engine
  stacks: Stacks
  serverId: string
  events: EventBus
  nodes: NodeRegistry
  cluster: Cluster
  config: { transferImage: string }
  /** The kept registries whose credentials a node the copy goes to is given (none sent without). */
  registries?: Pick<Registries, "forImages">
}

/**
 * What the planner needs to know about a server: its stacks, volumes, published ports, image tags and
 * container names. A port counts when any container would publish it once started: a running or
 * paused one's as the engine bound it, a stopped, created or restarting one's as its host config asks.
 */
export async function serverInventory(ctx: Pick<CopyDeps, "engine" | "stacks" | "serverId">): Promise<Inventory> {
  const [containers, volumes, images] = await Promise.all([
    ctx.engine.listContainers({ all: true }),
    ctx.engine.listVolumes(),
    ctx.engine.listImages(),
  ])
  const projects = containers.flatMap((c) => (c.Labels?.[STACK_LABEL] ? [c.Labels[STACK_LABEL]] : []))
  const bound = (c: ContainerSummary) => c.State === "running" || c.State === "paused"
  const asked = await Promise.all(
    containers.filter((c) => !bound(c)).map((c) => ctx.engine.inspectContainer(c.Id).then(portBindings, () => [])),
  )
  return {
    server_id: ctx.serverId,
    stacks: [...new Set([...ctx.stacks.names(), ...projects])].sort(),
    volumes: volumes.map((v) => v.Name),
    ports: [
      ...containers
        .filter(bound)
        .flatMap((c) =>
          c.Ports.flatMap((p) => (p.PublicPort ? [{ port: p.PublicPort, protocol: p.Type, ip: p.IP ?? "" }] : [])),
        ),
      ...asked.flat(),
    ],
    images: images.flatMap((i) => (i.RepoTags ?? []).filter((t) => t !== "<none>:<none>")),
    containers: containers.flatMap((c) => c.Names.map((n) => n.replace(/^\//, ""))),
  }
}

/** The host ports a container's host config publishes when it starts (`80/tcp` → `[{HostIp, HostPort}]`; an empty port is the engine's pick, none fixed). */
function portBindings(c: ContainerInspect): PublishedPort[] {
  const bindings = (c.HostConfig?.PortBindings ?? {}) as Record<string, { HostIp?: string; HostPort?: string }[] | null>
  return Object.entries(bindings).flatMap(([key, list]) => {
    const protocol = key.split("/")[1] ?? "tcp"
    return (list ?? []).flatMap((b) => {
      const [from, to = from] = (b.HostPort ?? "").split("-").map(Number) as [number, number?]
      if (!from || !to || to < from || to - from > 65535) return []
      return Array.from({ length: to - from + 1 }, (_, i) => ({ port: from + i, protocol, ip: b.HostIp ?? "" }))
    })
  })
}

/** One end of a copy: this server (its own functions) or a node (its routes, with the cluster token). */
export interface Side {
  where: string
  inventory(): Promise<Inventory>
  exportStack(name: string): Promise<StackExport>
  importStack(doc: StackExport): Promise<unknown>
  removeStack(name: string): Promise<unknown>
  up(name: string): Promise<unknown>
  exportVolume(name: string): Promise<VolumeArchive>
  importVolume(name: string, tar: ReadableStream<Uint8Array>): Promise<ImportResult>
  removeVolume(name: string): Promise<unknown>
  exportImages(refs: string[]): Promise<ReadableStream<Uint8Array>>
  importImages(tar: ReadableStream<Uint8Array>): Promise<unknown>
  removeImage(ref: string): Promise<unknown>
  /** Keeps registry credentials sent for the copy (a node only: this server has its own); answers the names stored. */
  receiveRegistries(sent: RegistryCredentials[]): Promise<{ stored: string[] }>
  removeRegistry(name: string): Promise<unknown>
}

export function localSide(ctx: CopyDeps): Side {
  const image = ctx.config.transferImage
  return {
    where: "this server",
    inventory: () => serverInventory(ctx),
    exportStack: (name) => exportStack(ctx, name),
    importStack: (doc) => importStack(ctx, doc),
    removeStack: (name) => ctx.stacks.remove(name),
    up: (name) => ctx.stacks.up(name),
    exportVolume: (name) => openVolume(ctx.engine, image, name),
    importVolume: (name, tar) => importVolume(ctx.engine, image, { volume: name, tar }),
    removeVolume: (name) => ctx.engine.removeVolume(name),
    exportImages: (refs) => ctx.engine.saveImages(refs),
    importImages: (tar) => ctx.engine.loadImages(tar),
    removeImage: (ref) => ctx.engine.removeImage(ref, { force: true }),
    receiveRegistries: async () => ({ stored: [] }),
    removeRegistry: async () => undefined,
  }
}

export function nodeSide(node: { name: string; url: string }, token: string): Side {
  const where = `node ${node.name}`
  const client = new NodeClient(node.url, { token, who: `${where} (${node.url})` })
  const send = (body: unknown) =>
    body instanceof ReadableStream ? { stream: body, headers: { "content-type": "application/x-tar" } } : { json: body }
  const json = (method: string, path: string, body?: unknown) => client.json(path, { method, ...send(body) })
  const tar = async (path: string) => (await client.ok(path)).body!
  const seg = encodeURIComponent
  return {
    where,
    inventory: () => json("GET", "/api/move/inventory"),
    exportStack: (name) => json("GET", `/api/stacks/${seg(name)}/export`),
    importStack: (doc) => json("POST", "/api/stacks/import", doc),
    removeStack: (name) => json("DELETE", `/api/stacks/${seg(name)}`),
    up: (name) => json("POST", `/api/stacks/${seg(name)}/up`),
    async exportVolume(name) {
      // Dropping the connection is what releases the node's container when the consumer gave up.
      const stop = new AbortController()
      const res = await client.ok(`/api/volumes/${seg(name)}/export`, { signal: stop.signal })
      return { tar: res.body!, release: async () => stop.abort() }
    },
    importVolume: (name, body) => json("POST", `/api/volumes/${seg(name)}/import`, body),
    removeVolume: (name) => json("DELETE", `/api/volumes/${seg(name)}`),
    exportImages: (refs) => tar(`/api/move/images?names=${seg(refs.join(","))}`),
    importImages: (body) => json("POST", "/api/move/images", body),
    removeImage: (ref) => json("DELETE", `/api/images/${seg(ref)}`),
    receiveRegistries: (registries) => json("POST", "/api/move/registries", { registries }),
    removeRegistry: (name) => json("DELETE", `/api/registries/${seg(name)}`),
  }
}

export interface CopyRequest extends Partial<CopyFlags> {
  from?: string
  to?: string
  as?: string
  start?: boolean
  dry_run?: boolean
}

/** This server (no node), or a node of the registry reached with the cluster token. */
export async function sideOf(ctx: CopyDeps, node: string | undefined): Promise<Side> {
  if (node === undefined) return localSide(ctx)
  const entry = await ctx.nodes.get(node)
  const token = (await ctx.cluster.read())?.token
  if (!token)
    throw conflict("this server holds no cluster token: copies between nodes run on the control plane", "no_cluster")
  return nodeSide(entry, token)
}

/** Streams one volume from source to destination, then releases the source, also when the destination failed. */
async function moveVolume(src: Side, dst: Side, from: string, to: string): Promise<ImportResult> {
  const { tar, release } = await src.exportVolume(from)
  try {
    return await dst.importVolume(to, tar)
  } finally {
    await release()
  }
}

export interface CopyResult {
  plan: Plan
  /** True when the copy was carried out (not a dry run). */
  copied: boolean
  started: boolean
}

export async function copyStack(ctx: CopyDeps, name: string, req: CopyRequest): Promise<CopyResult> {
  const flags: CopyFlags = {
    ...COPY_DEFAULTS,
    ...Object.fromEntries(Object.entries(req).filter(([k, v]) => k in COPY_DEFAULTS && v !== undefined)),
  }
  const source = stackName(name)
  const target = stackName(req.as ?? source)
  const [src, dst] = await Promise.all([sideOf(ctx, req.from), sideOf(ctx, req.to)])
  const [doc, srcInv, dstInv] = await Promise.all([src.exportStack(source), src.inventory(), dst.inventory()])
  const thePlan = plan({
    model: exportModel(doc),
    source: { name: source, volumes: srcInv.volumes, images: srcInv.images },
    target: {
      name: target,
      stacks: dstInv.stacks,
      volumes: dstInv.volumes,
      ports: dstInv.ports,
      images: dstInv.images,
      containers: dstInv.containers,
    },
    sameServer: srcInv.server_id === dstInv.server_id,
    flags,
  })
  // The registries the images need go to a node; on this server they are kept already.
  const toNode = req.to !== undefined && srcInv.server_id !== dstInv.server_id
  const credentials = (await ctx.registries?.forImages(thePlan.images.map((i) => i.ref))) ?? []
  thePlan.registries = credentials.map((r) => ({ name: r.name, address: r.address, send: toNode }))
  if (req.dry_run) return { plan: thePlan, copied: false, started: false }
  if (thePlan.blockers.length)
    throw conflict(`the copy is blocked: ${thePlan.blockers.map((b) => b.message).join("; ")}`, "copy_blocked", {
      fields: { plan: thePlan },
    })

  const undo: { what: string; run: () => Promise<unknown> }[] = []
  try {
    if (toNode && credentials.length)
      for (const name of (await dst.receiveRegistries(credentials)).stored)
        undo.push({ what: `registry ${name}`, run: () => dst.removeRegistry(name) })
    const images = thePlan.images.filter((i) => i.send).map((i) => i.ref)
    // Undo steps are registered before each transfer: a destination that dies in the middle cannot
    // clean up after itself, and none of these images or volumes was on it before (the plan sends
    // only missing images and blocks volumes that exist).
    for (const ref of images) undo.push({ what: `image ${ref}`, run: () => dst.removeImage(ref) })
    if (images.length) await dst.importImages(await src.exportImages(images))
    for (const v of thePlan.volumes.filter((v) => v.transfer)) {
      undo.push({ what: `volume ${v.target}`, run: () => dst.removeVolume(v.target) })
      await moveVolume(src, dst, v.source, v.target)
    }
    await dst.importStack({ ...doc, name: target })
    undo.push({ what: `stack ${target}`, run: () => dst.removeStack(target) })
    if (req.start) await dst.up(target)
  } catch (err) {
    await rollBack(ctx, undo.reverse(), `the copy of ${source} to ${dst.where} as ${target}`, dst.where)
    throw err
  }
  ctx.events.publish({
    type: "stack",
    action: "copy",
    name: target,
    level: "info",
    message: `copied ${source} from ${src.where} to ${dst.where} as ${target}`,
  })
  return { plan: thePlan, copied: true, started: req.start ?? false }
}

const gone = (err: unknown) => isDomainError(err, "not_found")

/** Runs the undo steps (newest first); what fails is named in an error event for removal by hand. */
async function rollBack(
  ctx: Pick<CopyDeps, "events">,
  steps: { what: string; run: () => Promise<unknown> }[],
  copy: string,
  where: string,
): Promise<void> {
  const left: string[] = []
  for (const step of steps) {
    try {
      await step.run()
    } catch (err) {
      if (!gone(err)) left.push(`${step.what} (${err instanceof Error ? err.message : String(err)})`)
    }
  }
  if (left.length)
    ctx.events.publish({
      type: "stack",
      action: "copy_undo_failed",
      level: "error",
      message: `${copy} failed and could not undo itself; remove by hand on ${where}: ${left.join("; ")}`,
    })
}
