// Which host paths a stack may reach. A compose file names host paths in several places: bind mount
// sources, local volumes bound to a device (`driver_opts: {o: bind, device}`), `secrets`/`configs`
// files, `env_file` entries and build contexts. Each must lie inside the stack's own folder
// (`<dataDir>/stacks/<name>/`) or under one of the roots SVC_BIND_ROOTS names; anything else (`/`,
// `/etc`, `../..`, `~`, a symlink that leads out) is refused with 400 `host_path_refused` before
// anything is written or run. Paths are resolved the way compose does: variables from the stack's
// environment (and the CLI's own HOME), relative to the stack folder, then through the symlinks that
// already exist on disk.
import { existsSync, realpathSync } from "node:fs"
import { homedir } from "node:os"
import { basename, dirname, isAbsolute, join, resolve } from "node:path"
import { HttpError } from "./http-error.ts"
import { interpolate } from "./interpolate.ts"
import { mountInventory, type ProjectInfo } from "./mounts.ts"

export interface HostPath {
  /** Where the compose file names it, e.g. `service app volumes`. */
  where: string
  path: string
}

type Obj = Record<string, unknown>
const obj = (v: unknown): Obj => (v && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : {})
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : v === undefined || v === null ? [] : [v])

/** Every host path the compose model names, interpolated but not yet resolved. */
export function hostPaths(model: unknown, p: ProjectInfo): HostPath[] {
  const m = obj(model)
  const out: HostPath[] = mountInventory(model, p).binds.map((b) => ({ where: `service ${b.service} volumes`, path: b.source }))
  const named = (v: unknown) => (typeof v === "string" ? interpolate(v, p.env) : undefined)
  for (const [key, config] of Object.entries(obj(m.volumes))) {
    const opts = obj(obj(config).driver_opts)
    const device = named(opts.device)
    if (device && /(^|,)r?bind(,|$)/.test(named(opts.o) ?? "")) out.push({ where: `volume ${key} device`, path: device })
  }
  for (const section of ["secrets", "configs"])
    for (const [key, config] of Object.entries(obj(m[section]))) {
      const file = named(obj(config).file)
      if (file) out.push({ where: `${section} ${key} file`, path: file })
    }
  for (const [service, config] of Object.entries(obj(m.services))) {
    const c = obj(config)
    for (const e of list(c.env_file)) {
      const file = named(typeof e === "string" ? e : obj(e).path)
      if (file) out.push({ where: `service ${service} env_file`, path: file })
    }
    const context = named(typeof c.build === "string" ? c.build : obj(c.build).context)
    if (context && !/^[a-z][a-z0-9+.-]*:\/\//i.test(context)) out.push({ where: `service ${service} build`, path: context })
  }
  return out
}

/** The path with every symlink that exists along it followed; the part not yet on disk is kept as written. */
function real(path: string): string {
  let existing = resolve(path)
  const rest: string[] = []
  while (!existsSync(existing) && dirname(existing) !== existing) {
    rest.unshift(basename(existing))
    existing = dirname(existing)
  }
  return join(realpathSync(existing), ...rest)
}

const within = (path: string, root: string) => path === root || path.startsWith(root.endsWith("/") ? root : `${root}/`)

/** Throws 400 `host_path_refused` for the first host path outside the stack folder and `roots`. */
export function checkHostPaths(model: unknown, p: ProjectInfo, roots: readonly string[]): void {
  const allowed = [p.projectDir, ...roots].map(real)
  for (const { where, path } of hostPaths(model, { ...p, env: { ...p.env, HOME: homedir() } })) {
    const absolute = path.startsWith("~") ? join(homedir(), path.slice(1)) : isAbsolute(path) ? path : join(p.projectDir, path)
    if (!allowed.some((root) => within(real(absolute), root)))
      throw new HttpError(400, "host_path_refused", `${where}: the host path "${path.slice(0, 200)}" is outside the stack's folder and SVC_BIND_ROOTS`)
  }
}
