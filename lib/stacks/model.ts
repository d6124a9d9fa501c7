// One model of a stack, compose's own. Whatever the service needs to know about a stack (the host
// paths the guard checks, the mount inventory and volume names copy plans with, images, published
// ports, services) is read from the model compose prints: `docker compose config --format json` with
// the plugin (its YAML `config` when the JSON printer fails on a model compose reads: 2.26 and a
// build's `ssh` key), `docker-compose config` (resolved YAML) with v1. By then compose has applied YAML merge
// keys and anchors, interpolation with the stack's environment, `extends`, `include`, profiles and
// long syntax, and made every path absolute against the project directory: what it prints is what
// `up` runs.
//
// The candidate is resolved before anything of the stack is written: its compose file, .env and its
// other files (lib/stacks/files.ts: an `extends:` or `include:`d file, an env file, `nginx.conf`) go
// to a private temporary folder laid out as the stack's folder will be, with whatever else lies in the
// stack's real folder (its data) linked in, and compose runs with that folder as its project
// directory: both versions resolve `extends.file`, `include` and `env_file` against the project
// directory, so they read the candidate's files, not the ones on disk. Every path of the model that
// lies in the temporary folder is then mapped back onto the stack's real folder, where it will be on
// deploy (and where the guard checks it, following the symlinks that are really there).
//
// What compose does not print: the files it reads while loading (`env_file`, read into
// `environment` by both versions; `extends` and `include` files, merged in). Those are found in the
// file itself before compose runs (`filesComposeReads` in lib/stacks/host-paths.ts), the one walk of our own
// left, and compose's error messages are checked for files outside the stack folder before they are
// passed on (compose quotes what it could not parse: `validating /etc/shadow: Additional property
// root:$y$... is not allowed`).
import { existsSync, readdirSync, statSync } from "node:fs"
import { isAbsolute, join, relative } from "node:path"
import type { ComposeFlavour, ComposeProject, ComposeRunner } from "./compose.ts"
import type { ClearEntry } from "../engine/clear-room.ts"
import { envRecord, renderEnvFile } from "./env.ts"
import {
  allowedIn,
  checkHostPaths,
  filesComposeReads,
  readIfFile,
  realPath,
  within,
  type HostPath,
} from "./host-paths.ts"
import { invalid, upstream } from "../errors/errors.ts"
import { parseMount, type BindEntry, type VolumeEntry } from "./mounts.ts"
import { checkTopKeys, parseYaml, parseYamlSync } from "./yaml.ts"
import type { StackFiles } from "./files.ts"

export type { BindEntry, HostPath, VolumeEntry }

export interface PublishedPort {
  port: number
  protocol: string
  /** The host address it is bound to; empty for every address. */
  ip: string
}

export interface StackModel {
  flavour: ComposeFlavour
  services: string[]
  /** Image references of the services, each once. */
  images: string[]
  /** Services built from a context. */
  built: string[]
  /** Fixed container names (`container_name:`): one container of an engine at a time may hold each. */
  containerNames: string[]
  ports: PublishedPort[]
  /** Named volumes (declared ones first), then anonymous ones. */
  volumes: VolumeEntry[]
  binds: BindEntry[]
  /** Every host path the model names: bind sources, bound volume devices, secret and config files, build contexts and Dockerfiles, watch paths. */
  hostPaths: HostPath[]
}

export interface ModelContext {
  /** The compose project name (the stack name). */
  project: string
  /** The stack's real folder, the project directory. */
  projectDir: string
  /** The working directory compose ran in, when it was not the project directory (v1 `device` paths are mapped back). */
  cwd?: string
  /** The stack's own files (relative paths): a bind of one of them, or of a folder holding only them, is not data. */
  files?: readonly string[]
}

type Obj = Record<string, unknown>
const obj = (v: unknown): Obj => (v && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : {})
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : v === undefined || v === null ? [] : [v])
const str = (v: unknown): string | undefined =>
  typeof v === "string" ? v : typeof v === "number" ? String(v) : undefined

const isUrl = (s: string) => /^[a-z][a-z0-9+.-]*:\/\//i.test(s) || /^git@/.test(s) || /^github\.com\//.test(s)

function range(text: string): number[] {
  const [from, to = from] = text.split("-").map(Number) as [number, number?]
  if (!Number.isInteger(from) || !Number.isInteger(to) || to < from || to - from > 65535) return []
  return Array.from({ length: to - from + 1 }, (_, i) => from + i)
}

/**
 * The host ports one `ports:` entry of compose's model publishes: v2 prints the long syntax, v1 the
 * long syntax or (for an entry with a host address or a range) the short string, interpolated. None
 * when only a container port is given.
 */
export function parsePorts(entry: unknown): PublishedPort[] {
  if (typeof entry === "object" && entry !== null) {
    const e = obj(entry)
    if (e.published === undefined || e.published === null || e.published === "") return []
    const protocol = typeof e.protocol === "string" ? e.protocol : "tcp"
    return range(String(e.published)).map((port) => ({
      port,
      protocol,
      ip: typeof e.host_ip === "string" ? e.host_ip : "",
    }))
  }
  const [spec, protocol = "tcp"] = String(entry).split("/") as [string, string?]
  const cut = spec.lastIndexOf(":")
  if (cut < 0) return []
  const host = spec.slice(0, cut)
  const ipCut = host.lastIndexOf(":")
  const ip = ipCut < 0 ? "" : host.slice(0, ipCut).replace(/^\[|\]$/g, "")
  const ports = ipCut < 0 ? host : host.slice(ipCut + 1)
  return ports ? range(ports).map((port) => ({ port, protocol, ip })) : []
}

/**
 * A local volume's `device` when it names a host path: an absolute path other than a network share
 * (`//host/share`, `addr:/export`), or any device of a bind mount (`o: bind`). Null otherwise (tmpfs,
 * nfs and the like).
 */
function volumeDevice(config: Obj): string | null {
  const driver = str(config.driver)
  if (driver && driver !== "local") return null
  const opts = obj(config.driver_opts)
  const device = str(opts.device)
  if (!device) return null
  const bind = /(^|,)r?bind(,|$)/.test(str(opts.o) ?? "") || str(opts.type) === "none"
  if (bind) return device
  // A block device (`type: ext4, device: /dev/sda1`) is a host path too; a share (`//host/share`,
  // `addr:/export`) or a tmpfs is not.
  return isAbsolute(device) && !device.startsWith("//") ? device : null
}

/** A model being read: what it is read against, and what is gathered from it. */
interface Reading {
  c: ModelContext
  /** The project directory with its symlinks followed: a bind inside it is the stack's data. */
  root: string
  /** The stack's own files (relative paths). */
  own: Set<string>
  /** The top-level `volumes:`. */
  declared: Obj
  /** Named volumes by key, each made on first use: the declared ones first. */
  named: Map<string, VolumeEntry>
  anonymous: VolumeEntry[]
  binds: BindEntry[]
  ports: PublishedPort[]
  hostPaths: HostPath[]
}

/** The model compose printed (JSON with v2, YAML with v1), read into what the service needs. Pure. */
export function readModel(raw: unknown, flavour: ComposeFlavour, c: ModelContext): StackModel {
  const model = obj(raw)
  const r: Reading = {
    c,
    root: realPath(c.projectDir),
    own: new Set(c.files ?? []),
    declared: obj(model.volumes),
    named: new Map(),
    anonymous: [],
    binds: [],
    ports: [],
    hostPaths: [],
  }
  declaredVolumes(r, flavour)
  for (const section of ["secrets", "configs"])
    for (const [key, config] of Object.entries(obj(model[section])))
      hostPath(r, `${section} ${key} file`, str(obj(config).file))
  const services = Object.entries(obj(model.services)).map(([name, s]) => [name, obj(s)] as const)
  for (const [service, s] of services) readService(r, service, s)

  const images = [...new Set(services.flatMap(([, s]) => (typeof s.image === "string" ? [s.image] : [])))]
  return {
    flavour,
    services: services.map(([name]) => name),
    images,
    built: services.filter(([, s]) => s.build !== undefined).map(([name]) => name),
    containerNames: services.flatMap(([, s]) => (typeof s.container_name === "string" ? [s.container_name] : [])),
    ports: r.ports,
    volumes: [...r.named.values(), ...r.anonymous],
    binds: r.binds,
    hostPaths: r.hostPaths,
  }
}

/** Adds a host path the model names, unless it is empty. */
function hostPath(r: Reading, where: string, path: string | undefined): void {
  if (path !== undefined && path !== "") r.hostPaths.push({ where, path })
}

/**
 * Whether a bind carries the stack's files (versioned, copied as files): a bind of one of them
 * (`./nginx.conf:/etc/nginx/nginx.conf:ro`), or of a folder that holds only stack files.
 */
function isStackFile(r: Reading, path: string): boolean {
  const dir = r.c.projectDir
  if (!within(path, dir) || path === dir) return false
  const rel = path.slice(dir.length + 1)
  if (r.own.has(rel)) return true
  const under = [...r.own].filter((f) => f.startsWith(`${rel}/`))
  return under.length > 0 && onDisk(path).every((f) => r.own.has(`${rel}/${f}`))
}

/** Whether a bind is the stack's data: inside the stack folder, and not its files. */
const isData = (r: Reading, path: string) => isAbsolute(path) && within(realPath(path), r.root) && !isStackFile(r, path)

/** The named volume `key`, made on first use: the engine's name for it and whether it is external, from its declaration (none for a volume only services name). */
function volume(r: Reading, key: string): VolumeEntry {
  let v = r.named.get(key)
  if (!v) {
    const { project } = r.c
    const config = obj(r.declared[key])
    const external = config.external === true || (typeof config.external === "object" && config.external !== null)
    const own = str(obj(config.external).name) ?? str(config.name)
    const name = own ?? (external ? key : `${project}_${key}`)
    r.named.set(
      key,
      (v = {
        key,
        name,
        external,
        explicit_name: !external && name !== `${project}_${key}`,
        anonymous: false,
        mounts: [],
      }),
    )
  }
  return v
}

/** The declared volumes in their order, with the host path of each whose device is one (v1's moved back from where compose ran). */
function declaredVolumes(r: Reading, flavour: ComposeFlavour): void {
  const { c } = r
  for (const [key, config] of Object.entries(r.declared)) {
    volume(r, key)
    let device = volumeDevice(obj(config))
    if (device !== null && flavour === "v1" && c.cwd && within(device, c.cwd))
      device = c.projectDir + device.slice(c.cwd.length)
    if (device !== null) hostPath(r, `volume ${key} device`, device)
  }
}

/** One service: its mounts, published ports, and the host paths it names. */
function readService(r: Reading, service: string, s: Obj): void {
  for (const rawMount of arr(s.volumes)) readMount(r, service, rawMount)
  for (const p of arr(s.ports)) r.ports.push(...parsePorts(p))
  // v2 prints `env_file` only when it skips reading it; v1 never does. Either way it is checked.
  for (const e of arr(s.env_file))
    hostPath(r, `service ${service} env_file`, typeof e === "string" ? e : str(obj(e).path))
  if (s.build !== undefined) buildPaths(r, service, s.build)
  for (const w of arr(obj(s.develop).watch)) hostPath(r, `service ${service} develop watch`, str(obj(w).path))
}

/** One entry of a service's `volumes:`: a bind (the stack's files, its data, or a host path elsewhere), a named volume's mount, or an anonymous volume. */
function readMount(r: Reading, service: string, rawMount: unknown): void {
  const m = parseMount(rawMount)
  if (!m) return
  const at = { service, target: m.target, read_only: m.read_only }
  if (m.type === "bind" && m.source) {
    const file = isAbsolute(m.source) && isStackFile(r, m.source)
    r.binds.push({ ...at, source: m.source, data: !file && isData(r, m.source), ...(file ? { file } : {}) })
    hostPath(r, `service ${service} volumes`, m.source)
  } else if (m.type === "volume" && m.source) volume(r, m.source).mounts.push(at)
  else if (m.type === "volume")
    r.anonymous.push({ key: null, name: null, external: false, explicit_name: false, anonymous: true, mounts: [at] })
}

/** The host paths a service's `build:` names: its context and Dockerfile (unless the context is remote), additional contexts on disk, ssh keys. */
function buildPaths(r: Reading, service: string, raw: unknown): void {
  const build = typeof raw === "string" ? { context: raw } : obj(raw)
  const context = str(build.context) ?? "."
  if (!isUrl(context)) {
    hostPath(r, `service ${service} build context`, context)
    const dockerfile = str(build.dockerfile)
    if (dockerfile && build.dockerfile_inline === undefined)
      hostPath(
        r,
        `service ${service} build dockerfile`,
        isAbsolute(dockerfile) ? dockerfile : join(context, dockerfile),
      )
  }
  for (const [name, ctx] of Object.entries(obj(build.additional_contexts))) {
    const where = str(ctx)
    if (where && !isUrl(where) && !/^(docker-image|service|oci-layout):/.test(where))
      hostPath(r, `service ${service} build context ${name}`, where)
  }
  for (const ssh of arr(build.ssh)) {
    const file = typeof ssh === "string" ? ssh.split("=", 2)[1] : str(obj(ssh).path)
    if (file) hostPath(r, `service ${service} build ssh`, file)
  }
}

/** The files under a folder on disk, relative to it (none when it does not exist). */
function onDisk(dir: string): string[] {
  try {
    return readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((e) => !e.isDirectory())
      .map((e) => relative(dir, join(e.parentPath, e.name)))
  } catch {
    return []
  }
}

/**
 * Every string of a parsed model that names a path in `from` (or is it), moved onto `to`: wherever
 * the path ends, at a "/", or at a ":" (v1 prints a bind in the short syntax, `/scratch:/code:rw`).
 */
function movePaths(v: unknown, from: string, to: string): unknown {
  const at = new RegExp(`${from.replace(/[.*+?^$|()[\]{}\\]/g, "\\$&")}(?=[/:]|$)`, "g")
  const move = (x: unknown): unknown => {
    if (typeof x === "string") return x.replace(at, () => to)
    if (Array.isArray(x)) return x.map(move)
    if (x && typeof x === "object")
      return Object.fromEntries(Object.entries(x).map(([k, y]) => [move(k) as string, move(y)]))
    return x
  }
  return move(v)
}

/** What the candidate's folder holds of its own: never replaced by a link to what lies in the stack's folder. */
const SCRATCH_OWN = new Set(["compose.yaml", ".env"])

/**
 * The candidate's folder as the stack's folder will be: compose file, .env, the stack's files, and a
 * link to each other thing in the real folder (its data), except the stack's current files (`own`),
 * which the candidate replaces. Compose reads it in a room of its own (lib/engine/clear-room.ts).
 */
function layOut({
  projectDir,
  compose,
  env,
  files,
  own,
}: {
  projectDir: string
  compose: string
  env: string
  files: StackFiles
  own: readonly string[]
}): ClearEntry[] {
  const entries: ClearEntry[] = [
    { path: "compose.yaml", content: compose },
    { path: ".env", content: env },
    ...Object.entries(files).map(([path, content]) => ({ path, content })),
  ]
  const tops = new Set([...Object.keys(files), ...own].map((p) => p.split("/")[0]!))
  if (!existsSync(projectDir)) return entries
  for (const entry of readdirSync(projectDir))
    if (!SCRATCH_OWN.has(entry) && !tops.has(entry) && !/\.tmp-\d+-[a-z0-9]*$/.test(entry))
      entries.push({ path: entry, link: join(projectDir, entry) })
  return entries
}

/** Absolute paths of existing files named in compose's error output that lie outside the allowed folders. */
function outsideFilesIn(output: string, allowed: (path: string) => boolean): string[] {
  const found = output.match(/\/[^\s'"`,;:()]+/g) ?? []
  return [...new Set(found)].filter((p) => {
    try {
      return statSync(p).isFile() && !allowed(p)
    } catch {
      return false
    }
  })
}

/** What prints a model: the compose runner, or the docker CLI's `stack config` (lib/stacks/stack-cli.ts). */
export type ModelRunner = Pick<ComposeRunner, "env" | "flavour" | "config">

export interface CandidateInput {
  /** The stack's name and real folder (the project directory), and the environment the deploy will use. */
  project: ComposeProject
  compose: string
  /** Host folders besides the stack's own that it may reach (SVC_BIND_ROOTS). */
  roots: readonly string[]
  /** The stack's files as the deploy will write them (relative path → content). */
  files?: StackFiles
  /** The stack's files now (relative paths), which `files` replaces. */
  own?: readonly string[]
  /** The service's data directory: no part of it but the stack's own folder may be reached, whatever `roots` say. */
  dataDir?: string
}

/** A candidate that passed: what the service reads of compose's model, and the model itself as compose will run it. */
export interface CheckedModel {
  model: StackModel
  /** Compose's printed model with the stack's real paths, as JSON (secrets in the clear: kept 0600, never shown). */
  run: string
}

/**
 * The files compose reads while loading (env_file, extends, include) must be the candidate's own
 * when they lie in the stack's folder: anything else there is the stack's data, which its containers
 * can change between the check and compose's read. An optional env file that is neither (absent) is
 * skipped by compose.
 */
function checkLoadedFiles(
  paths: HostPath[],
  projectDir: string,
  files: StackFiles,
  read: (path: string) => string | undefined,
): void {
  for (const { where, path, optional } of paths) {
    if (where.endsWith("project_directory") || !within(path, projectDir) || path === projectDir) continue
    // An optional env file that is not there is skipped by compose: nothing is read from the folder
    // (v2's model then names it nowhere; v1 refuses the long form in its own words).
    if (optional && read(path) === undefined) continue
    const rel = path.slice(projectDir.length + 1)
    // `.env` is the stack's environment as the service renders it (`env_file: .env`), laid out with the candidate.
    if (rel !== ".env" && !Object.hasOwn(files, rel))
      throw invalid(
        `${where}: "${rel.slice(0, 200)}" is not one of the stack's files; compose would read it from the stack's folder, which its containers can change: send it as one of the stack's files`,
        "host_path_refused",
      )
  }
}

/**
 * Compose's model of a candidate compose file and environment, resolved as if they lay in the
 * stack's folder, and checked: a file that is not YAML is a 400 `invalid_compose` (before compose is
 * asked), a file that reads or names a host path outside the stack's folder and `roots` a 400
 * `host_path_refused`, a file compose refuses a 400 `invalid_compose` with compose's own message.
 * Nothing is written to the data directory.
 */
export async function candidateModel(
  runner: ModelRunner,
  { project, compose, roots, files = {}, own = [], dataDir }: CandidateInput,
): Promise<CheckedModel> {
  await readCompose(compose)
  const allowed = allowedIn(project.dir, roots, dataDir)
  // The files compose reads while loading are the candidate's where it has them (and gone where it
  // drops one of the stack's files), else what is on disk.
  const dropped = new Set(own.filter((p) => !Object.hasOwn(files, p)))
  const read = (path: string): string | undefined => {
    if (within(path, project.dir) && path !== project.dir) {
      const rel = path.slice(project.dir.length + 1)
      if (Object.hasOwn(files, rel)) return files[rel]
      if (dropped.has(rel)) return undefined
    }
    return readIfFile(path)
  }
  const loaded = await filesComposeReads(compose, {
    env: envRecord(project.env),
    dir: project.dir,
    allowed,
    runnerEnv: runner.env,
    read,
  })
  checkHostPaths(loaded, project.dir, roots, dataDir)
  checkLoadedFiles(loaded, project.dir, files, read)

  const flavour = await runner.flavour()
  const entries = layOut({ projectDir: project.dir, compose, env: renderEnvFile(project.env, flavour), files, own })
  const result = await runner.config(project, { entries })
  const scratch = result.dir
  if (result.code !== 0) {
    const message = result.output.split(scratch).join(project.dir)
    const outside = outsideFilesIn(message, allowed)
    if (outside.length)
      throw invalid(
        `compose read ${outside[0]!.slice(0, 200)}, outside the stack's folder and SVC_BIND_ROOTS (its message is withheld)`,
        "host_path_refused",
      )
    throw invalid(
      `compose refused the file: ${message.split("\n").slice(-20).join("\n") || "no output"}`,
      "invalid_compose",
    )
  }
  let raw: unknown
  try {
    // v1 prints with PyYAML and the docker CLI with go-yaml, YAML 1.1 writers: read it as 1.1 (`'8080:80'`, `'yes'` stay strings).
    raw =
      result.format === "json"
        ? JSON.parse(result.stdout)
        : await parseYaml(result.stdout, { what: "compose's model", maxBytes: MODEL_MAX_BYTES, version: "1.1" })
  } catch {
    throw upstream("compose config printed a model that does not parse", "compose_failed")
  }
  if (result.flavour === "v2" && result.format === "yaml") raw = sshFromYaml(raw)
  raw = movePaths(raw, scratch, project.dir)
  const model = readModel(raw, result.flavour, {
    project: project.name,
    projectDir: project.dir,
    files: Object.keys(files),
  })
  checkHostPaths(model.hostPaths, project.dir, roots, dataDir)
  return { model, run: JSON.stringify(raw, null, 2) }
}

/**
 * A model compose v2 printed as YAML (its JSON printer failed on it) with each build's `ssh` entry
 * back in the form compose reads (`id=path`): its YAML printer writes `id: path`, which compose would
 * read back as a key named so, with no path, and the guard would not see the path.
 */
function sshFromYaml(raw: unknown): unknown {
  for (const s of Object.values(obj(obj(raw).services))) {
    const build = obj(obj(s).build)
    if (Array.isArray(build.ssh))
      build.ssh = build.ssh.map((e) => (typeof e === "string" ? e.replace(/^([^=:\s]+): /, "$1=") : e))
  }
  return raw
}

/** How large a model compose v1 may print (it expands anchors and adds defaults). */
const MODEL_MAX_BYTES = 64 * 1024 * 1024

function composeMapping(doc: unknown): Record<string, any> {
  if (!doc || typeof doc !== "object" || Array.isArray(doc))
    throw invalid("the compose file must be a YAML mapping", "invalid_compose")
  return doc as Record<string, any>
}

/**
 * A compose file from a request, parsed off the event loop (lib/stacks/yaml.ts): 413 when too large,
 * 400 `invalid_compose` with the parser's message, or for too many top-level keys.
 */
export async function readCompose(text: string): Promise<Record<string, any>> {
  const doc = composeMapping(await parseYaml(text))
  checkTopKeys(doc)
  return doc
}

/** A compose file the service has already accepted (through `readCompose`), parsed here and now. */
export const parseCompose = (text: string): Record<string, any> => composeMapping(parseYamlSync(text))
