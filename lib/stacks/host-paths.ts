// Which host paths a stack may reach. Compose's model (lib/stacks/model.ts) names them: bind mount
// sources, local volumes bound to a device, `secrets`/`configs` files, build contexts and Dockerfiles;
// the files compose reads while loading (`env_file`, `extends`, `include`) are found before it runs
// (`filesComposeReads`). Each must lie inside the stack's own folder (`<dataDir>/stacks/<name>/`) or
// under one of the roots SVC_BIND_ROOTS names; anything else (`/`, `/etc`, `../..`, `~`, a symlink that
// leads out) is refused with 400 `host_path_refused` before anything is written or run. Symlinks that
// already exist on disk are followed (the realpath of the longest existing prefix).
import { existsSync, readFileSync, realpathSync, statSync } from "node:fs"
import { basename, dirname, isAbsolute, join, resolve } from "node:path"
import { invalid } from "../errors/errors.ts"
import { interpolate } from "./interpolate.ts"
import { checkTopKeys, parseYaml } from "./yaml.ts"

export interface HostPath {
  /** Where it is named, e.g. `service app volumes`. */
  where: string
  /** Absolute as compose resolved it; a relative one is one compose left for the engine to resolve. */
  path: string
  /** An `env_file` entry with `required: false`: compose skips it when the file is not there. */
  optional?: boolean
}

/** The path with every symlink that exists along it followed; the part not yet on disk is kept as written. */
export function realPath(path: string): string {
  let existing = resolve(path)
  const rest: string[] = []
  while (!existsSync(existing) && dirname(existing) !== existing) {
    rest.unshift(basename(existing))
    existing = dirname(existing)
  }
  return join(realpathSync(existing), ...rest)
}

export const within = (path: string, root: string) =>
  path === root || path.startsWith(root.endsWith("/") ? root : `${root}/`)

/**
 * Whether a path lies (through existing symlinks) inside the stack folder or one of the roots; a
 * root that is a file or a socket (the engine's, for Traefik or Dozzle) allows exactly that path. With
 * `dataDir`, nothing else of the data directory is allowed, even under a root: neither a path in it
 * (another stack's folder, what the service keeps of its stacks) nor a folder that holds it (`/`).
 */
export function allowedIn(projectDir: string, roots: readonly string[], dataDir?: string): (path: string) => boolean {
  const own = realPath(projectDir)
  const notFolder = (root: string) => {
    try {
      return !statSync(root).isDirectory()
    } catch {
      return false // not there (yet): a folder it may become
    }
  }
  const allowed = roots.map((root) => ({ path: realPath(root), exact: notFolder(root) }))
  const data = dataDir === undefined ? undefined : realPath(dataDir)
  const keptOut = (p: string) => data !== undefined && (within(p, data) || within(data, p))
  return (path) => {
    if (!isAbsolute(path)) return false
    const real = realPath(path)
    return (
      within(real, own) ||
      (allowed.some((root) => (root.exact ? real === root.path : within(real, root.path))) && !keptOut(real))
    )
  }
}

/** Throws 400 `host_path_refused` for the first host path outside the stack folder and `roots` (and, with `dataDir`, for any other part of the data directory). */
export function checkHostPaths(
  paths: HostPath[],
  projectDir: string,
  roots: readonly string[],
  dataDir?: string,
): void {
  const allowed = allowedIn(projectDir, roots, dataDir)
  for (const { where, path } of paths) {
    if (!isAbsolute(path))
      throw invalid(
        `${where}: the host path "${path.slice(0, 200)}" is left relative by compose: the engine would resolve it against its own folder`,
        "host_path_refused",
      )
    if (!allowed(path))
      throw invalid(
        `${where}: the host path "${path.slice(0, 200)}" is outside the stack's folder and SVC_BIND_ROOTS, or in the service's data directory`,
        "host_path_refused",
      )
  }
}

type Obj = Record<string, unknown>
const obj = (v: unknown): Obj => (v && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : {})
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : v === undefined || v === null ? [] : [v])

/** The variables compose interpolates with: the stack's, with the runner's own (PATH, HOME, DOCKER_CONFIG, DOCKER_HOST) over them. */
export function interpolationEnv(
  env: Record<string, string>,
  runnerEnv: Record<string, string>,
): Record<string, string> {
  return { ...env, HOME: "/root", ...runnerEnv }
}

/** A file's text, or undefined when there is no regular file at `path`. */
export function readIfFile(path: string): string | undefined {
  try {
    return statSync(path).isFile() ? readFileSync(path, "utf8") : undefined
  } catch {
    return undefined
  }
}

/**
 * The files compose reads while it loads a project and does not print in its model: `env_file`
 * entries (read into `environment`: neither v1 nor v2 prints the path), `extends.file` and `include`
 * files (merged in: the model names neither), with an include's own `env_file`s and
 * `project_directory`. The one walk of the compose file left, because compose cannot be asked: by the
 * time it prints a model it has read these files, and the model no longer names them. It errs towards
 * more paths: every service's entries are taken, whether compose would use them or not, merge keys
 * applied as compose applies them, variables interpolated as compose does (nested defaults too).
 * Files it finds inside the allowed folders are walked in turn, relative to their own folder; one that
 * does not parse (an alias bomb among them) or has too many top-level keys is refused with 400
 * `invalid_compose` before compose reads it.
 */
export async function filesComposeReads(
  text: string,
  {
    env,
    dir: projectDir,
    allowed,
    runnerEnv,
    read = readIfFile,
  }: {
    /** The project's environment. */
    env: Record<string, string>
    /** The project's folder. */
    dir: string
    allowed: (path: string) => boolean
    /** The compose runner's own environment (`ComposeRunner.env`). */
    runnerEnv: Record<string, string>
    /** How a file is read: the candidate's files over the disk (lib/stacks/model.ts). */
    read?: (path: string) => string | undefined
  },
): Promise<HostPath[]> {
  const vars = interpolationEnv(env, runnerEnv)
  const out: HostPath[] = []
  const seen = new Set<string>()
  const walk = async (doc: unknown, base: string, file: string, depth: number): Promise<void> => {
    const m = obj(doc)
    const at = (where: string, raw: unknown, dir = base, optional = false): string | undefined => {
      if (typeof raw !== "string") return undefined
      const value = interpolate(raw, vars)
      const full =
        value === "~" || value.startsWith("~/")
          ? join(vars.HOME!, value.slice(1))
          : isAbsolute(value)
            ? value
            : join(dir, value)
      out.push({ where: `${file}${where}`, path: full, ...(optional ? { optional } : {}) })
      return full
    }
    // `required: false` (or a string compose reads as false after interpolation) makes an env file optional.
    const optional = (e: Obj) =>
      e.required === false || (typeof e.required === "string" && /^false$/i.test(interpolate(e.required, vars)))
    const follow = async (path: string | undefined, dir?: string) => {
      if (!path || depth > 8 || seen.has(path) || !allowed(path)) return
      const content = read(path)
      if (content === undefined) return
      seen.add(path)
      const doc = await parseYaml(content, { what: path })
      checkTopKeys(doc, path)
      await walk(doc, dir ?? dirname(path), `${path}: `, depth + 1)
    }
    for (const entry of arr(m.include)) {
      if (typeof entry === "string") {
        await follow(at("include", entry))
        continue
      }
      const e = obj(entry)
      const dir = at("include project_directory", e.project_directory)
      for (const f of arr(e.env_file)) at("include env_file", f, dir)
      for (const p of arr(e.path)) await follow(at("include", p), dir)
    }
    for (const [service, config] of Object.entries(obj(m.services))) {
      const s = obj(config)
      for (const e of arr(s.env_file))
        if (typeof e === "string") at(`service ${service} env_file`, e)
        else at(`service ${service} env_file`, obj(e).path, base, optional(obj(e)))
      const ext = obj(s.extends)
      if (ext.file !== undefined) await follow(at(`service ${service} extends`, ext.file))
    }
  }
  await walk(await parseYaml(text), projectDir, "", 0)
  return out
}
