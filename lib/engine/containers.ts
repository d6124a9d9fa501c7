// The service's own container records, mapped from the engine's list and inspect answers.
import type { ContainerAction, ContainerInspect, ContainerSummary, Engine, Port } from "./client.ts"
import { conflict } from "../errors/errors.ts"

export const STACK_LABEL = "com.docker.compose.project"
export const SERVICE_LABEL = "com.docker.compose.service"

/**
 * How texts about the objects of compose project `project` may be shown. What the engine says about
 * a stack's containers (a label, a command, a healthcheck's exec) can hold the stack's secrets: the
 * service hands the engine room a redactor that hides them.
 */
export type Redactor = (project: string) => (text: string) => string

/** How the texts of an object with these labels are shown: redacted for a compose project's, else as they are. */
export function shownFor(
  labels: Record<string, string> | undefined,
  redactor: Redactor | undefined,
): (text: string) => string {
  const project = labels?.[STACK_LABEL]
  return project !== undefined && redactor ? redactor(project) : (text) => text
}

/**
 * Labels (or an event's attributes) with their values shown through `shown`. Keys, and the values of
 * compose's own labels (project, service, config hash, paths), are kept: they hold no secret, and
 * readers find a stack's objects by them (a secret equal to a stack's name must not hide its events
 * from the mount watcher).
 */
export const shownLabels = (labels: Record<string, string>, shown: (text: string) => string) =>
  Object.fromEntries(Object.entries(labels).map(([k, v]) => [k, k.startsWith("com.docker.compose.") ? v : shown(v)]))

export interface PortRecord {
  ip?: string
  private_port: number
  public_port?: number
  type: string
}

export interface ContainerRecord {
  id: string
  name: string
  image: string
  image_id: string
  state: string
  status: string
  /** ISO 8601 */
  created: string
  ports: PortRecord[]
  labels: Record<string, string>
  /** The compose project the container belongs to, if any. */
  stack: string | null
  /** The compose service the container runs, if any. */
  service: string | null
}

export interface ContainerDetail extends ContainerRecord {
  command: string[]
  tty: boolean
  started_at: string | null
  exit_code: number
  mounts: { type: string; name: string | null; source: string; destination: string; rw: boolean }[]
  networks: string[]
}

const portRecord = (p: Port): PortRecord => ({
  ...(p.IP ? { ip: p.IP } : {}),
  private_port: p.PrivatePort,
  ...(p.PublicPort ? { public_port: p.PublicPort } : {}),
  type: p.Type,
})

const owner = (labels: Record<string, string>) => ({
  stack: labels[STACK_LABEL] ?? null,
  service: labels[SERVICE_LABEL] ?? null,
})

/** The list record of a container; its name, image and labels shown through `redactor`. */
export function containerRecord(c: ContainerSummary, redactor?: Redactor): ContainerRecord {
  const labels = c.Labels ?? {}
  const shown = shownFor(labels, redactor)
  return {
    id: c.Id,
    name: shown((c.Names[0] ?? c.Id.slice(0, 12)).replace(/^\//, "")),
    image: shown(c.Image),
    image_id: c.ImageID,
    state: c.State,
    status: c.Status,
    created: new Date(c.Created * 1000).toISOString(),
    ports: (c.Ports ?? []).map(portRecord),
    labels: shownLabels(labels, shown),
    ...owner(labels),
  }
}

type InspectPorts = Record<string, { HostIp: string; HostPort: string }[] | null>

/** Published and exposed ports from an inspect answer ("80/tcp" keys), in the list's shape. */
function inspectPorts(ports: InspectPorts | undefined): PortRecord[] {
  return Object.entries(ports ?? {}).flatMap(([key, bindings]) => {
    const [port, type = "tcp"] = key.split("/")
    const base = { PrivatePort: Number(port), Type: type }
    return bindings?.length
      ? bindings.map((b) => portRecord({ ...base, IP: b.HostIp, PublicPort: Number(b.HostPort) }))
      : [portRecord(base)]
  })
}

/** The detail record of one container; its name, image, labels and command shown through `redactor`. Its environment is left out: stack secrets live there. */
export function containerDetail(c: ContainerInspect, redactor?: Redactor): ContainerDetail {
  const labels = c.Config.Labels ?? {}
  const shown = shownFor(labels, redactor)
  const net = (c.NetworkSettings ?? {}) as { Ports?: InspectPorts; Networks?: Record<string, unknown> }
  return {
    id: c.Id,
    name: shown(c.Name.replace(/^\//, "")),
    image: shown(c.Config.Image),
    image_id: c.Image,
    state: c.State.Status,
    status: c.State.Status,
    created: c.Created,
    ports: inspectPorts(net.Ports),
    labels: shownLabels(labels, shown),
    ...owner(labels),
    command: (c.Config.Cmd ?? []).map(shown),
    tty: c.Config.Tty,
    started_at: c.State.StartedAt && !c.State.StartedAt.startsWith("0001") ? c.State.StartedAt : null,
    exit_code: c.State.ExitCode,
    mounts: (c.Mounts ?? []).map((m) => ({
      type: m.Type,
      name: m.Name ?? null,
      source: m.Source,
      destination: m.Destination,
      rw: m.RW ?? true,
    })),
    networks: Object.keys(net.Networks ?? {}),
  }
}

const NEEDS: Partial<Record<ContainerAction, string>> = { pause: "running", unpause: "paused" }

/**
 * Runs an action and answers the container's state after it. Pausing needs a running container and
 * unpausing a paused one: the engine answers those with a 500, here they are conflicts like the rest.
 */
export async function runAction(
  engine: Engine,
  id: string,
  action: ContainerAction,
): Promise<{ id: string; action: ContainerAction; state: string }> {
  const needs = NEEDS[action]
  if (needs) {
    const before = await engine.inspectContainer(id)
    if (before.State.Status !== needs)
      throw conflict(
        `cannot ${action} container ${before.Name.replace(/^\//, "")}: it is ${before.State.Status}, not ${needs}`,
      )
  }
  await engine.containerAction(id, action)
  const after = await engine.inspectContainer(id)
  return { id: after.Id, action, state: after.State.Status }
}
