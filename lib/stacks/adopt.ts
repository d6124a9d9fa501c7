// Adopting a compose project made elsewhere (`compose -p shop up -d` by hand): it becomes a stack with
// files here, version 1 with action "adopt", and keeps its containers.
//
// Its files are found from its containers' labels: `com.docker.compose.project.working_dir`,
// `.config_files` (v1 relative to the working dir, v2 absolute) and `.environment_file` (else
// `<working_dir>/.env`). They are read only where the host-path rule allows (SVC_BIND_ROOTS); the
// plan names the ones it could not read, and the request may carry them (`content`, `env`, `files`).
// Several compose files (`-f a -f b`) become one, merged by compose v2 with variables left as written.
// Relative binds (`./data:/data`) would move with the project directory into the stack's folder and
// leave their data behind: they are rewritten to the absolute path they had, or refused when that path
// is outside SVC_BIND_ROOTS. Files compose reads from the old folder (`env_file`, `extends`, `include`)
// become the stack's own files. Before anything is written, compose's `config --hash` of the adopted
// file is compared with each container's `com.docker.compose.config-hash`: a service whose hash
// differs would be recreated, and adoption waits for `recreate: true`.
import { isAbsolute, join, relative } from "node:path"
import { SERVICE_LABEL, STACK_LABEL } from "../engine/containers.ts"
import type { ContainerSummary, Engine } from "../engine/client.ts"
import { conflict, notFound } from "../errors/errors.ts"
import { envRecord, looksSecret, publicEnv, type EnvVar } from "./env.ts"
import { checkFiles, filePath, type StackFiles } from "./files.ts"
import { filesComposeReads, readIfFile, within } from "./host-paths.ts"
import { interpolate } from "./interpolate.ts"
import { stackName } from "./name.ts"
import { stackView } from "./state.ts"
import type { StackView } from "./orchestrator.ts"
import type { ComposeRunner } from "./compose.ts"
import { tailOf } from "./orchestrator.ts"
import { upstream } from "../errors/errors.ts"
import type { StackRecords, Stacks } from "./store.ts"
import { volumeEntries } from "./yaml.ts"

export const CONFIG_FILES_LABEL = "com.docker.compose.project.config_files"
export const WORKING_DIR_LABEL = "com.docker.compose.project.working_dir"
export const ENV_FILE_LABEL = "com.docker.compose.project.environment_file"
export const CONFIG_HASH_LABEL = "com.docker.compose.config-hash"

/** Where a project's files were when it was brought up. */
export interface ProjectSource {
  working_dir: string
  config_files: string[]
  /** The env file compose read (absolute). */
  env_file: string
}

/** The project's files from a container's labels (v1 names config files relative to the working dir). Pure. */
export function projectSource(labels: Record<string, string>): ProjectSource {
  const dir = labels[WORKING_DIR_LABEL] ?? ""
  const abs = (p: string) => (isAbsolute(p) ? p : join(dir, p))
  const files = (labels[CONFIG_FILES_LABEL] ?? "").split(",").filter(Boolean).map(abs)
  return { working_dir: dir, config_files: files, env_file: abs(labels[ENV_FILE_LABEL] || ".env") }
}

/**
 * An env file as compose reads it: `KEY=value` lines, `export ` allowed, `#` comments; a single-quoted
 * value is literal, a double-quoted one takes `\n` and `\"`, an unquoted one ends before ` #`. Pure.
 */
export function parseEnvFile(text: string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const line of text.split(/\r?\n/)) {
    const m = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*=\s*(.*)$/.exec(line)
    if (!m) continue
    const raw = m[2]!.trim()
    const quoted = /^(['"])([\s\S]*)\1$/.exec(raw)
    out[m[1]!] = quoted
      ? quoted[1] === "'"
        ? quoted[2]!
        : quoted[2]!.replace(/\\n/g, "\n").replace(/\\(["\\$])/g, "$1")
      : raw.replace(/\s+#.*$/, "")
  }
  return out
}

/** The variables a compose file interpolates (as compose reads `$VAR`, `${VAR:-x}`, `$$`). Pure. */
export function interpolatedKeys(text: string): Set<string> {
  const keys = new Set<string>()
  const record = new Proxy({} as Record<string, string>, {
    get: (_, k) => (typeof k === "string" && keys.add(k), undefined),
    getOwnPropertyDescriptor: (_, k) => (typeof k === "string" && keys.add(k), undefined),
  })
  interpolate(text, record)
  return keys
}

export interface BindRewrite {
  service: string
  /** As written in the file. */
  source: string
  /** The absolute path it had in the old project directory. */
  path: string
  /** rewritten: the file now names `path`; refused: `path` is outside SVC_BIND_ROOTS. */
  action: "rewritten" | "refused"
}

/** A path written as a YAML scalar: plain where that reads back as written in block and flow context, else double-quoted. */
const scalar = (value: string) =>
  /^[A-Za-z0-9_./][A-Za-z0-9_./~@+=:-]*$/.test(value) && value.includes("/") && !value.endsWith(":")
    ? value
    : JSON.stringify(value)

/**
 * Every relative bind source of the file's services made absolute against the old project directory
 * (short `./data:/data` and long `{type: bind, source: ./data}` forms), where `allowed`; the others are
 * listed as refused and left as they are. Only those strings change: comments and layout are kept.
 * The file is read as every YAML text of a request (lib/stacks/yaml.ts: 413, 400 `invalid_compose`).
 */
export async function rewriteBinds(
  text: string,
  dir: string,
  allowed: (path: string) => boolean,
): Promise<{ compose: string; binds: BindRewrite[] }> {
  const binds: BindRewrite[] = []
  const edits: { start: number; end: number; value: string }[] = []
  const relativePath = (s: string) => s === "." || s === ".." || s.startsWith("./") || s.startsWith("../")
  for (const { service, short, value, start, end } of await volumeEntries(text)) {
    const source = short ? value.split(":")[0]! : value
    if (!relativePath(source)) continue
    const path = join(dir, source)
    const ok = allowed(path)
    binds.push({ service, source, path, action: ok ? "rewritten" : "refused" })
    if (ok) edits.push({ start, end, value: path + value.slice(source.length) })
  }
  const compose = edits.reduceRight((t, e) => t.slice(0, e.start) + scalar(e.value) + t.slice(e.end), text)
  return { compose, binds }
}

export interface ServicePlan {
  name: string
  /** keep: hashes match, the containers stay; recreate: they differ; create: no container yet; remove: no longer in the file. */
  action: "keep" | "recreate" | "create" | "remove"
  containers: string[]
}

/** Each service's fate, from compose's `config --hash` output and the containers' hash labels. Pure. */
export function servicePlans(hashOutput: string, containers: ContainerSummary[]): ServicePlan[] {
  const hashes = new Map([...hashOutput.matchAll(/^(\S+) ([0-9a-f]{64})\s*$/gm)].map((m) => [m[1]!, m[2]!]))
  const names = [...new Set([...hashes.keys(), ...containers.map((c) => c.Labels[SERVICE_LABEL] ?? "")])].sort()
  return names.map((name) => {
    const own = containers.filter((c) => c.Labels[SERVICE_LABEL] === name)
    const hash = hashes.get(name)
    const action =
      hash === undefined
        ? "remove"
        : !own.length
          ? "create"
          : own.every((c) => c.Labels[CONFIG_HASH_LABEL] === hash)
            ? "keep"
            : "recreate"
    return { name, action, containers: own.map((c) => c.Id) }
  })
}

export interface AdoptRequest {
  /** The compose file, when the project's own cannot be read here. */
  content?: string
  /** The environment, when the project's env file cannot be read here (secret: omitted → by SVC_SECRET_KEYS). */
  env?: { key: string; value: string; secret?: boolean }[]
  /** Files of the project's folder that the compose file reads (relative path → content). */
  files?: StackFiles
  /** Go ahead although some services would be recreated. */
  recreate?: boolean
  dry_run?: boolean
}

export interface AdoptPlan {
  name: string
  source: ProjectSource
  /** Files the request must carry because they lie outside SVC_BIND_ROOTS (or are missing). */
  needed: { path: string; as: string }[]
  /** The compose file the stack will have (empty while it is needed). */
  compose: string
  /** The stack's other files (relative paths). */
  files: string[]
  /** Secret values hidden; `interpolated`: the compose file uses the key. */
  env: { key: string; value: string | null; secret: boolean; interpolated: boolean }[]
  binds: BindRewrite[]
  services: ServicePlan[]
  /** Why the adoption cannot go ahead as asked (empty: it can). */
  blockers: string[]
}

/** What could be read of the project here (`merged`: its several files as compose merged them), and what the request must carry. */
function gather(source: ProjectSource, req: AdoptRequest, allowed: (p: string) => boolean, merged: string | undefined) {
  const needed: AdoptPlan["needed"] = []
  const read = (path: string, as: string) => {
    const text = allowed(path) ? readIfFile(path) : undefined
    if (text === undefined) needed.push({ path, as })
    return text
  }
  let compose = req.content
  if (compose === undefined && source.config_files.length > 1) {
    compose = merged
    if (compose === undefined)
      needed.push({ path: source.config_files.join(","), as: "content (the files merged into one)" })
  } else if (compose === undefined)
    compose = read(source.config_files[0] ?? join(source.working_dir, "compose.yaml"), "content")
  const values = req.env
    ? Object.fromEntries(req.env.map((e) => [e.key, e.value]))
    : parseEnvFile((allowed(source.env_file) ? readIfFile(source.env_file) : undefined) ?? "")
  if (!req.env && !allowed(source.env_file) && readIfFile(source.env_file) !== undefined)
    needed.push({ path: source.env_file, as: "env" })
  return { compose, values, needed, read }
}

/** A project's several compose files merged by compose, when every one of them can be read here. */
async function mergedFiles(
  compose: ComposeRunner,
  source: ProjectSource,
  allowed: (p: string) => boolean,
): Promise<string | undefined> {
  if (source.config_files.length < 2 || !source.config_files.every((f) => allowed(f) && readIfFile(f) !== undefined))
    return undefined
  return compose.merge(source.config_files, source.working_dir)
}

/** What an adoption uses of the service. */
export interface AdoptDeps {
  engine: Engine
  stacks: Stacks
  compose: ComposeRunner
  config: { bindRoots: string[]; secretKeys: string[] }
}

/** The plan (and with no dry_run and no blockers, the adoption): compose project `name` becomes a stack. */
export async function adoptProject(
  ctx: AdoptDeps,
  name: string,
  req: AdoptRequest,
): Promise<{ plan: AdoptPlan; stack?: StackView }> {
  stackName(name)
  if (ctx.stacks.has(name)) throw conflict(`${name} is already a managed stack`, "stack_exists")
  const containers = await ctx.engine.listContainers({ all: true, filters: { label: [`${STACK_LABEL}=${name}`] } })
  if (!containers.length) throw notFound(`no compose project named ${name} runs on the engine`, "no_project")
  let files = checkFiles(Object.fromEntries(Object.entries(req.files ?? {}).map(([p, c]) => [filePath(p), c])))
  const source = projectSource(containers[0]!.Labels)
  const allowed = ctx.stacks.allows(name)
  const merged = req.content === undefined ? await mergedFiles(ctx.compose, source, allowed) : undefined
  const { compose: original, values, needed, read } = gather(source, req, allowed, merged)
  const used = interpolatedKeys(original ?? "")
  const byKey = new Map((req.env ?? []).map((e) => [e.key, e.secret]))
  const env: EnvVar[] = Object.entries(values).map(([key, value]) => ({
    key,
    value,
    secret: byKey.get(key) ?? looksSecret(key, ctx.config.secretKeys),
  }))
  const plan: AdoptPlan = {
    name,
    source,
    needed,
    compose: "",
    files: [],
    env: [],
    binds: [],
    services: [],
    blockers: [],
  }
  plan.env = publicEnv(env).map((e) => ({ ...e, interpolated: used.has(e.key) }))
  if (original === undefined) return blocked(plan)

  const { compose, binds } = await rewriteBinds(original, source.working_dir, allowed)
  plan.compose = compose
  plan.binds = binds
  // Files compose reads from the old folder become the stack's own, at the same relative path
  // (entries, not assignments: a file may be named `__proto__`).
  const found: [string, string][] = []
  for (const { path } of await filesComposeReads(original, {
    env: envRecord(env),
    dir: source.working_dir,
    allowed,
    runnerEnv: ctx.compose.env,
  }))
    if (within(path, source.working_dir) && path !== source.working_dir) {
      const rel = relative(source.working_dir, path)
      if (Object.hasOwn(files, rel)) continue
      const text = read(path, `files["${rel}"]`)
      if (text !== undefined) found.push([filePath(rel), text])
    }
  files = { ...files, ...Object.fromEntries(found) }
  plan.files = Object.keys(files).sort()
  if (needed.length || binds.some((b) => b.action === "refused")) return blocked(plan)

  await ctx.stacks.model(name, compose, env, files)
  plan.services = servicePlans(await configHashes(ctx, name, { compose, env, files }), containers)
  const changed = plan.services
    .filter((s) => s.action !== "keep")
    .map((s) => `${s.action === "recreate" ? "would recreate" : `would ${s.action}`} ${s.name}`)
  if (changed.length && !req.recreate)
    plan.blockers.push(
      `${changed.join(", ")}: the file differs from what the containers run (recreate: true goes ahead)`,
    )
  if (req.dry_run || plan.blockers.length) return { plan }
  await ctx.stacks.adopt(name, { compose, env, files })
  return { plan, stack: await stackView(ctx.stacks, ctx.engine, name) }
}

function blocked(plan: AdoptPlan): { plan: AdoptPlan } {
  for (const n of plan.needed)
    plan.blockers.push(`${n.path} cannot be read here (outside SVC_BIND_ROOTS or missing): send it as ${n.as}`)
  for (const b of plan.binds.filter((b) => b.action === "refused"))
    plan.blockers.push(
      `service ${b.service}: the bind ${b.source} is ${b.path}, outside SVC_BIND_ROOTS: its data would be left behind`,
    )
  return { plan }
}

/** Compose's config hash per service for the adopted file, from a room laid out as the stack's folder. */
async function configHashes(ctx: AdoptDeps, name: string, { compose, env, files }: StackRecords): Promise<string> {
  const layout = [
    { path: "compose.yaml", content: compose },
    ...Object.entries(files).map(([path, content]) => ({ path, content })),
  ]
  const { code, output } = await ctx.compose.run(
    { name, dir: ctx.stacks.dir(name), env },
    ["config", "--hash=*"],
    "adopt",
    {
      layout,
    },
  )
  if (code !== 0) throw upstream(`compose config failed: ${tailOf(output)}`, "compose_failed")
  return output
}
