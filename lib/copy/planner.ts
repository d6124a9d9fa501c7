// The copy plan: what copying a stack to a destination (another server, or this one under a new
// name) would do, and what stops it. Pure: the stack's model as compose resolved it on the source
// (lib/stacks/model.ts: volumes, binds, images, ports), what exists on the source and on the
// destination, and the request's flags in; the plan out.
import { within } from "../stacks/host-paths.ts"
import type { PublishedPort, StackModel } from "../stacks/model.ts"
import type { BindEntry, VolumeMount } from "../stacks/mounts.ts"

export interface CopyFlags {
  include_volumes: boolean
  allow_binds: boolean
  allow_anonymous_volumes: boolean
  allow_port_clash: boolean
}

/** The defaults of the copy request's flags; `start` and `dry_run` default to false as well. */
export const COPY_DEFAULTS: CopyFlags = {
  include_volumes: true,
  allow_binds: false,
  allow_anonymous_volumes: false,
  allow_port_clash: false,
}

/** What one side (source or destination) has: stack names, volume names, published ports, image tags, container names. */
export interface SideFacts {
  stacks: string[]
  volumes: string[]
  ports: PublishedPort[]
  images: string[]
  /** Absent from the inventory of a server of an earlier release. */
  containers?: string[]
}

/**
 * What the plan reads of the stack's model. `built`: the services whose build the copy does not
 * carry (`buildsLeftBehind`). `files`: the stack's own files (relative paths), carried with it; a
 * bind of one of them (`file: true`) is not a host path left behind.
 */
export type PlanModel = Pick<StackModel, "images" | "built" | "containerNames" | "ports" | "volumes" | "binds"> & {
  files?: string[]
  /** Where its orchestrator keeps its named volumes' data (lib/stacks/orchestrator.ts `VOLUMES_LIE_ON`): on the nodes its tasks ran on, each with data of its own, there is no one copy to carry. */
  volumesOn?: "engine" | "nodes"
}

export interface PlanInput {
  model: PlanModel
  /** The source stack's name, the volume names and image tags its engine has. */
  source: { name: string; volumes: string[]; images: string[] }
  target: { name: string } & SideFacts
  sameServer: boolean
  flags: CopyFlags
}

export interface PlannedVolume {
  key: string
  /** The name on the source engine. */
  source: string
  /** The name it takes on the destination. */
  target: string
  external: boolean
  explicit_name: boolean
  exists_on_destination: boolean
  /** Whether its data is copied. */
  transfer: boolean
  mounts: VolumeMount[]
}

export interface PlannedImage {
  ref: string
  on_destination: boolean
  /** Sent from the source engine because the destination lacks it. */
  send: boolean
}

export type BlockerCode =
  | "name_taken"
  | "container_name_taken"
  | "port_clash"
  | "volume_name_kept"
  | "volume_exists"
  | "binds"
  | "anonymous_volumes"
  | "swarm_volumes"
  | "bind_refused"
  | "bind_not_empty"

export interface Plan {
  source: string
  target: string
  same_server: boolean
  volumes: PlannedVolume[]
  binds: BindEntry[]
  /** The stack's files the copy carries (relative paths); binds of them are among `binds` with `file: true`. */
  files: string[]
  images: PlannedImage[]
  ports: PublishedPort[]
  warnings: string[]
  blockers: { code: BlockerCode; message: string }[]
  /** The kept registries the images need (set by the copy, lib/copy/copy.ts); `send`: given to the destination node. */
  registries?: { name: string; address: string; send: boolean }[]
}

const ANY_ADDRESS = new Set(["", "0.0.0.0", "::"])
const clashes = (a: PublishedPort, b: PublishedPort) =>
  a.port === b.port && a.protocol === b.protocol && (ANY_ADDRESS.has(a.ip) || ANY_ADDRESS.has(b.ip) || a.ip === b.ip)

/** An image reference as the engine lists it: `busybox` is `busybox:latest`, Docker Hub's prefixes dropped. */
export function imageKey(ref: string): string {
  const bare = ref.replace(/^(docker\.io|index\.docker\.io)\//, "").replace(/^library\//, "")
  return bare.includes("@") || /:[^/]+$/.test(bare) ? bare : `${bare}:latest`
}

/**
 * The built services a copy cannot build again from what it carries: those whose build reads a host
 * path outside the stack's folder `dir` (a context there is the stack's own files, which the copy
 * carries; a remote context names no host path).
 */
export function buildsLeftBehind(model: Pick<StackModel, "built" | "hostPaths">, dir: string): string[] {
  return model.built.filter((service) =>
    model.hostPaths.some((p) => p.where.startsWith(`service ${service} build `) && !within(p.path, dir)),
  )
}

export function plan(input: PlanInput): Plan {
  const { model, source, target, flags, sameServer } = input
  const warnings: string[] = []
  const blockers: Plan["blockers"] = []
  const block = (code: BlockerCode, message: string) => blockers.push({ code, message })

  if (target.stacks.includes(target.name))
    block("name_taken", `the destination already has a stack named ${target.name}`)
  for (const name of model.containerNames) {
    if (sameServer)
      block(
        "container_name_taken",
        `container_name ${name} is the source's own on this server: the copy could not run beside it`,
      )
    else if (target.containers?.includes(name))
      block("container_name_taken", `the destination already has a container named ${name} (container_name)`)
  }

  const ports = model.ports
  for (const p of ports.filter((p) => target.ports.some((t) => clashes(p, t)))) {
    const text = `port ${p.port}/${p.protocol} is already published on the destination`
    if (flags.allow_port_clash) warnings.push(`${text}; the copy will not start until it is free`)
    else block("port_clash", text)
  }

  // A swarm stack's named volumes (and bound data) are made on each node a task of it ran on: there is no one copy of their data to carry.
  const spread =
    model.volumesOn === "nodes" ? model.volumes.filter((v) => !v.anonymous && !v.external).map((v) => v.key!) : []
  if (spread.length && flags.include_volumes)
    block(
      "swarm_volumes",
      `the named volumes of a swarm stack (${spread.join(", ")}) live on every node its tasks ran on, each with data of its own: copy it without include_volumes (they start empty)`,
    )
  const volumes: PlannedVolume[] = []
  for (const v of model.volumes) {
    if (v.anonymous) {
      const where = v.mounts.map((m) => `${m.service}:${m.target}`).join(", ")
      if (flags.include_volumes && !flags.allow_anonymous_volumes)
        block(
          "anonymous_volumes",
          `the anonymous volume at ${where} cannot be copied; allow_anonymous_volumes accepts losing it`,
        )
      else warnings.push(`the anonymous volume at ${where} is not copied; the copy starts with an empty one`)
      continue
    }
    const key = v.key!
    if (!source.volumes.includes(v.name!)) {
      warnings.push(`volume ${key} (${v.name}) was never created on the source; the copy creates it empty`)
      continue
    }
    const keepsName = v.external || v.explicit_name
    const name = keepsName ? v.name! : `${target.name}_${key}`
    const exists = target.volumes.includes(name)
    const transfer = flags.include_volumes && !v.external && model.volumesOn !== "nodes"
    volumes.push({
      key,
      source: v.name!,
      target: name,
      external: v.external,
      explicit_name: v.explicit_name,
      exists_on_destination: exists,
      transfer,
      mounts: v.mounts,
    })
    if (keepsName && sameServer)
      block(
        "volume_name_kept",
        `volume ${key} keeps its name ${name} (${v.external ? "external" : "explicit name:"}), so on the same server the copy would share it with the source`,
      )
    else if (v.external && !exists)
      warnings.push(
        `external volume ${name} does not exist on the destination; create it there before starting the copy`,
      )
    else if (exists && transfer)
      block(
        "volume_exists",
        `volume ${name} already exists on the destination; remove it there, or copy without include_volumes to use it as it is`,
      )
    else if (exists && !v.external)
      warnings.push(`volume ${name} already exists on the destination; the copy uses it as it is`)
  }

  for (const b of model.binds) {
    if (b.file) continue
    const text = `host path ${b.source} (${b.service}:${b.target}) is not copied`
    if (flags.allow_binds) warnings.push(`${text}; it must exist on the destination`)
    else block("binds", `${text}; allow_binds accepts that it stays behind`)
  }

  const images = model.images.map((ref) => {
    const has = (images: string[]) => images.some((i) => imageKey(i) === imageKey(ref))
    const onDestination = has(target.images)
    const send = !onDestination && has(source.images)
    if (!onDestination && !send)
      warnings.push(`image ${ref} is on neither server; the destination pulls it when the copy starts`)
    return { ref, on_destination: onDestination, send }
  })
  for (const name of model.built)
    warnings.push(`service ${name} is built from files outside the stack's folder; its build context is not copied`)

  return {
    source: source.name,
    target: target.name,
    same_server: sameServer,
    volumes,
    binds: model.binds,
    files: model.files ?? [],
    images,
    ports,
    warnings,
    blockers,
  }
}
