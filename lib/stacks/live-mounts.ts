// The binds of a stack's started containers, checked against what the stack may reach. Compose's
// model is checked before anything runs (host-paths.ts), but the engine resolves a bind's source each
// time it starts a container, following whatever links are on the way then: a container that binds
// the stack's folder can plant one there for another service, or for its own next start under a
// restart policy. So what the kernel mounted is read back. The container's init process's mountinfo
// names, for each mount, its filesystem (major:minor) and its root inside that filesystem; the
// service's own mountinfo says where that filesystem is mounted here, which makes the host path the
// bind really reached. A container whose bind reached outside is taken down: killed at once (a kill
// through the API is a stop by hand, which no restart policy undoes), then its restart policy set to
// "no" (`always` would start it again with the engine). It is kept, stopped: its logs stay readable, and a later start (compose's next
// `up`, a user's) is checked again; removing it would also lose what the store's check after `up`
// needs to see that it was refused.
import { readFileSync } from "node:fs"
import type { ContainerInspect, Engine, Mount } from "../engine/client.ts"
import { SERVICE_LABEL, STACK_LABEL } from "../engine/containers.ts"
import type { EventBus, ServiceEvent } from "../engine/events.ts"
import { isDomainError } from "../errors/errors.ts"
import { redact } from "./env.ts"
import { realPath, within } from "./host-paths.ts"

/** One line of a mountinfo file: the filesystem, the folder of it that is mounted, and where. */
export interface MountLine {
  /** major:minor of the filesystem. */
  dev: string
  /** The mounted folder or file inside that filesystem. */
  root: string
  /** Where it is mounted, as the reading process sees its root. */
  point: string
}

/** A bind that reached outside what its stack may reach; its container was taken down. */
export interface Escape {
  stack: string
  /** The container's id and name. */
  id: string
  container: string
  service: string
  /** Where it was mounted in the container. */
  destination: string
  /** The host path it reached, or, on a filesystem mounted nowhere the service sees, that filesystem and the path inside it. */
  path: string
}

/** mountinfo writes space, tab, newline and backslash in paths as octal escapes (`\040`). */
const unescape = (s: string) =>
  s.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)))

/** The lines of a mountinfo file (`/proc/<pid>/mountinfo`); a root whose file was deleted loses the kernel's `//deleted`. */
export function parseMountinfo(text: string): MountLine[] {
  const lines: MountLine[] = []
  for (const line of text.split("\n")) {
    const f = line.split(" ")
    if (f.length < 5 || !/^\d+:\d+$/.test(f[2]!)) continue
    lines.push({ dev: f[2]!, root: unescape(f[3]!).replace(/\/\/deleted$/, ""), point: unescape(f[4]!) })
  }
  return lines
}

/** The host mount that holds a path: the deepest mount point above it, the last mounted of those at one point. */
function holder(path: string, host: MountLine[]): MountLine | undefined {
  let found: MountLine | undefined
  for (const m of host) if (within(path, m.point) && (!found || m.point.length >= found.point.length)) found = m
  return found
}

/**
 * Where a mount's root lies on the host: under each host mount of the same filesystem whose root
 * holds it (one filesystem may be mounted several times, a btrfs subvolume or a bind of one folder
 * as its own root), deepest root first. A path under a mount that another covers is left out: the
 * object is not there for anyone who looks.
 */
export function hostPaths(mount: Pick<MountLine, "dev" | "root">, host: MountLine[]): string[] {
  const paths: string[] = []
  const candidates = host
    .filter((m) => m.dev === mount.dev && within(mount.root, m.root))
    .sort((a, b) => b.root.length - a.root.length)
  for (const m of candidates) {
    const rest = m.root === "/" ? mount.root : mount.root.slice(m.root.length)
    const path = rest === "" || rest === "/" ? m.point : m.point === "/" ? rest : `${m.point}${rest}`
    if (holder(path, host) === m && !paths.includes(path)) paths.push(path)
  }
  return paths
}

const read = (path: string): string | undefined => {
  try {
    return readFileSync(path, "utf8")
  } catch {
    return undefined
  }
}

/**
 * The mounts of a container's init process, or undefined when they cannot be read: the process is
 * gone, /proc is another pid namespace's or not readable. The pid is the container's only while that
 * process lives, so its cgroup must still name the container once the mounts are read.
 */
function containerMounts(proc: string, pid: number | undefined, id: string): MountLine[] | undefined {
  if (!pid) return undefined
  const text = read(`${proc}/${pid}/mountinfo`)
  if (text === undefined || !read(`${proc}/${pid}/cgroup`)?.includes(id)) return undefined
  return parseMountinfo(text)
}

/** The host source of a mount that is a bind: a bind mount, or a local volume bound to a folder (`o: bind`). */
async function bindSource(engine: Engine, m: Mount): Promise<string | undefined> {
  if (m.Type === "bind") return m.Source
  if (m.Type !== "volume" || !m.Name) return undefined
  const options = (await engine.inspectVolume(m.Name).catch(() => undefined))?.Options ?? {}
  return options.o?.split(",").includes("bind") ? options.device : undefined
}

/**
 * The binds of a running container that reached outside `allowed`. Each is read from the kernel
 * (see the top of this file). Where the kernel cannot be asked (the process gone or in a pid
 * namespace the service does not see, /proc unreadable, a destination the container's mountinfo does
 * not show as named, as when it lies under a link in the image), the bind's source is followed
 * through the links that are on disk now: weaker, since a link may have changed since the start.
 */
export async function escapesOf(
  engine: Engine,
  c: ContainerInspect,
  allowed: (path: string) => boolean,
  proc = "/proc",
): Promise<Omit<Escape, "stack">[]> {
  const host = parseMountinfo(read(`${proc}/self/mountinfo`) ?? "")
  const inside = host.length ? containerMounts(proc, c.State.Pid, c.Id) : undefined
  const escapes: Omit<Escape, "stack">[] = []
  const refuse = (m: Mount, path: string) =>
    escapes.push({
      id: c.Id,
      container: c.Name.replace(/^\//, ""),
      service: c.Config.Labels?.[SERVICE_LABEL] ?? "",
      destination: m.Destination,
      path,
    })
  for (const m of c.Mounts ?? []) {
    const source = await bindSource(engine, m)
    if (source === undefined) continue
    const mounted = inside?.filter((l) => l.point === m.Destination) ?? []
    const named = mounted.length ? undefined : realPath(source)
    if (named !== undefined && !allowed(named)) refuse(m, named)
    for (const l of mounted) {
      const paths = hostPaths(l, host)
      if (!paths.some(allowed))
        refuse(m, paths[0] ?? `${l.root} on filesystem ${l.dev}, mounted nowhere the service sees`)
    }
  }
  return escapes
}

export interface LiveMountsOptions {
  engine: Engine
  events: Pick<EventBus, "publish" | "subscribe">
  /** Whether a compose project is a stack of the store. */
  managed: (stack: string) => boolean
  /** What a stack's binds may reach. */
  allowedFor: (stack: string) => (hostPath: string) => boolean
  /** The stack's secret values, kept out of events. */
  secrets?: (stack: string) => string[]
  /** Where /proc is (a test's own tree). */
  proc?: string
}

/**
 * Checks the binds of started containers: the store asks after `up` (`check`), and the watcher
 * (`run`) checks every container of a stack the engine starts (a restart policy's start too).
 */
export class LiveMounts {
  /** Checks under way, one per container. */
  private pending = new Map<string, Promise<Escape[]>>()
  /** Containers taken down and what they reached, until a check finds them running well or they are gone. */
  private refused = new Map<string, Escape[]>()

  private readonly engine: LiveMountsOptions["engine"]
  private readonly events: LiveMountsOptions["events"]
  private readonly managed: LiveMountsOptions["managed"]
  private readonly allowedFor: LiveMountsOptions["allowedFor"]
  private readonly proc: LiveMountsOptions["proc"]
  private readonly secrets: LiveMountsOptions["secrets"]

  constructor(o: LiveMountsOptions) {
    this.engine = o.engine
    this.events = o.events
    this.managed = o.managed
    this.allowedFor = o.allowedFor
    this.proc = o.proc
    this.secrets = o.secrets
  }

  /**
   * The escapes of a compose project's containers: those running are checked now (and taken down);
   * those stopped are answered with what they were taken down for.
   */
  async check(project: string, allowed: (hostPath: string) => boolean): Promise<Escape[]> {
    const list = await this.engine.listContainers({ all: true, filters: { label: [`${STACK_LABEL}=${project}`] } })
    const ids = new Set(list.map((c) => c.Id))
    for (const [id, escapes] of this.refused) if (escapes[0]!.stack === project && !ids.has(id)) this.refused.delete(id)
    const found = await Promise.all(
      list.map((c) =>
        c.State === "running" || c.State === "paused"
          ? this.checkContainer(project, c.Id, allowed)
          : (this.refused.get(c.Id) ?? []),
      ),
    )
    return found.flat()
  }

  /**
   * Until the signal aborts: every container start of a managed stack is checked. Each time it
   * begins hearing the bus (again, after falling too far behind), the running containers are checked too.
   */
  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      const heard = this.events.subscribe(signal)
      const first = heard.next() // heard from here on
      await this.sweep().catch(() => {})
      for (let e = await first; !e.done; e = await heard.next()) void this.heard(e.value).catch(() => {})
    }
  }

  private async heard(e: ServiceEvent): Promise<void> {
    const stack = e.attributes?.[STACK_LABEL]
    if (e.source === "engine" && e.type === "container" && e.action === "start" && e.id && stack)
      await this.started(stack, e.id)
  }

  private async sweep(): Promise<void> {
    for (const c of await this.engine.listContainers({ filters: { label: [STACK_LABEL] } }))
      await this.started(c.Labels[STACK_LABEL]!, c.Id).catch(() => {})
  }

  /** A container of a compose project started: checked when the project is a managed stack. */
  private async started(stack: string, id: string): Promise<void> {
    if (this.managed(stack)) await this.checkContainer(stack, id, this.allowedFor(stack))
  }

  private checkContainer(stack: string, id: string, allowed: (hostPath: string) => boolean): Promise<Escape[]> {
    let p = this.pending.get(id)
    if (!p) {
      p = this.inspectAndCheck(stack, id, allowed).finally(() => this.pending.delete(id))
      this.pending.set(id, p)
    }
    return p
  }

  private async inspectAndCheck(stack: string, id: string, allowed: (hostPath: string) => boolean): Promise<Escape[]> {
    const c = await this.engine.inspectContainer(id).catch((err) => {
      if (isDomainError(err, "not_found")) return undefined
      throw err
    })
    if (!c) this.refused.delete(id)
    if (!c?.State.Running) return this.refused.get(id) ?? []
    const escapes = (await escapesOf(this.engine, c, allowed, this.proc)).map((e) => ({ stack, ...e }))
    if (!escapes.length) {
      this.refused.delete(id)
      return []
    }
    this.refused.set(id, escapes)
    await this.takeDown(escapes)
    return escapes
  }

  /**
   * SIGKILL, then no restart policy brings it back with the engine, each tried whatever the other
   * did (`--rm` containers refuse a policy change); one `mount_refused` event per escape.
   */
  private async takeDown(escapes: Escape[]): Promise<void> {
    const { stack, id, container } = escapes[0]!
    /** Why a step failed; a container already stopped (409) or gone (404) is what it was for. */
    const attempt = (step: Promise<void>) =>
      step.then(
        () => undefined,
        (err) =>
          isDomainError(err, "not_found", "conflict") ? undefined : err instanceof Error ? err.message : String(err),
      )
    const killFailed = await attempt(this.engine.killContainer(id))
    const policyFailed = await attempt(this.engine.updateContainer(id, { RestartPolicy: { Name: "no" } }))
    const outcome = killFailed
      ? `stopping container ${container} failed: ${killFailed}`
      : `container ${container} was stopped${policyFailed ? ` (its restart policy could not be changed: ${policyFailed})` : ""}`
    const secrets = this.secrets?.(stack) ?? []
    for (const e of escapes) {
      const message = `service ${e.service}: its bind at ${e.destination} reached ${e.path}, outside what the stack may reach; ${outcome}`
      this.events.publish({
        type: "stack",
        action: "mount_refused",
        name: stack,
        id,
        level: "error",
        message: redact(message, secrets),
      })
    }
  }
}
