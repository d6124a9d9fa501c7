// The catalog as the handlers call it (`ctx.catalog`): the templates of every source, a template's
// preview (its compose file with the values given, and what the guard says of it), its install as a
// normal stack (remembering the template and its version, with a guarded update policy and a backup
// schedule when asked), a stack's template updates (the compose diff, applied as a watched deploy
// through the update guard), a stack saved as a template, and the logos, served from here.
//
// A template can never bring in what a typed stack could not: its compose file and files go through
// the stack store's own checks (compose's model, the host path guard) for the preview and again for
// the deploy, and its repository and logo are reached only as its source may reach (outbound.ts).
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from "node:fs"
import { join } from "node:path"
import { maskUrl } from "../credentials/urls.ts"
import { readJson, writeFileAtomic, writeJson } from "../data/datadir.ts"
import type { EventBus } from "../engine/events.ts"
import { conflict, invalid, notFound, refused } from "../errors/errors.ts"
import { fetchTree, DEFAULT_LIMITS } from "../git/tree.ts"
import { errorKind } from "../http/http-error.ts"
import type { EnvInput } from "../stacks/env.ts"
import { readCompose } from "../stacks/model.ts"
import { stackName } from "../stacks/name.ts"
import { StackMemo } from "../stacks/memo.ts"
import type { Stacks } from "../stacks/store.ts"
import { nextDue, type UpdateRecords } from "../updates/records.ts"
import type { BackupVerbs } from "../verbs/backup-verbs.ts"
import type { StackVerbs } from "../verbs/stack-verbs.ts"
import { unifiedDiff } from "./diff.ts"
import { outboundGet } from "./outbound.ts"
import { unsecretCompose } from "./parse.ts"
import { templateFiles } from "./save.ts"
import { gitResolve, Sources } from "./sources.ts"
import { categories as categoriesOf, digestOf, slug, TEMPLATE_ID, text, type Template } from "./template.ts"
import { fill, renderNote } from "./values.ts"

export interface CatalogOptions {
  dataDir: string
  stacks: Stacks
  verbs: StackVerbs
  backups: BackupVerbs
  updateRecords: UpdateRecords
  events: EventBus
  secretKeys: string[]
  /** Seconds a template update is watched unless told (SVC_UPDATE_WATCH). */
  updateWatch: number
  now?: () => number
}

/** What a template installs once its repository (if any) was read. */
export interface Content {
  compose: string
  files: Record<string, string>
  digest: string
  commit: string | null
}

/** What a stack keeps of the template it was installed from (<records>/<name>/template.json). */
export interface InstalledFrom {
  source: string
  id: string
  title: string
  version: string | null
  digest: string
  /** The template's compose file as installed: the stack's own differs once it was edited here. */
  compose: string
  commit: string | null
  installed_at: string
  updated_at: string
}

export interface InstallInput {
  name: string
  values?: Record<string, string>
  dry_run?: boolean
  /** A guarded update policy (auto_update apply, nightly): on unless false. */
  update_policy?: boolean
  /** A backup repository whose schedule takes the app's volumes; null for none; left out: the first one kept. */
  backup?: string | null
  watch?: number
  orchestrator?: "compose" | "swarm"
}

export interface Caller {
  admin: boolean
  by?: string
  signal?: AbortSignal
}

/** The update policy an install sets: apply new images of the same tags nightly, watched, rolled back when unhealthy. */
export const INSTALL_POLICY = { auto_update: "apply" as const, schedule: "0 4 * * *", watch: null }
/** The schedule a repository gets when an install asks it for backups and it has none. */
export const INSTALL_BACKUP_SCHEDULE = "0 3 * * *"

const RISKS: [RegExp, string][] = [
  [/^\s*privileged:\s*true\b/m, "a service runs privileged: every capability of the host"],
  [/^\s*network_mode:\s*["']?host\b/m, "a service uses the host's network"],
  [/^\s*pid:\s*["']?host\b/m, "a service shares the host's processes"],
  [/^\s*cap_add:/m, "a service adds kernel capabilities"],
  [/^\s*devices:/m, "a service reaches host devices"],
  [/docker\.sock/, "a service names the Docker socket: whoever controls it controls this host"],
]

export class Catalog {
  readonly sources: Sources
  private readonly now: () => number
  private readonly logoFailed = new Map<string, number>()
  /** What each stack was installed from (null: none): read once, then kept by the writes here. */
  private readonly installed: StackMemo<InstalledFrom | null>

  constructor(private readonly parts: CatalogOptions) {
    this.now = parts.now ?? Date.now
    this.sources = new Sources(parts.dataDir, this.now)
    this.installed = new StackMemo(parts.stacks, (name) => readJson<InstalledFrom | null>(this.recordFile(name), null))
  }

  private get dir(): string {
    return join(this.parts.dataDir, "catalog")
  }

  /** Every source's name: the service's own first. */
  async sourceNames(): Promise<string[]> {
    return ["curated", "saved", ...(await this.sources.list()).map((s) => s.name)]
  }

  /** The templates of every source (or of one), those for admins only left out for others. */
  async templates(admin: boolean, only?: string): Promise<{ source: string; template: Template }[]> {
    const names = only ? [only] : await this.sourceNames()
    const all = await Promise.all(
      names.map(async (source) => (await this.sources.templates(source)).map((template) => ({ source, template }))),
    )
    return all.flat().filter((t) => admin || !t.template.admin_only)
  }

  /** One template (404 when its source has none of that id, or it is for admins and the caller is not). */
  async template(source: string, id: string, admin: boolean): Promise<Template> {
    const t = (await this.sources.templates(source)).find((x) => x.id === id)
    if (!t || (t.admin_only && !admin)) throw notFound(`source ${source} has no template ${id}`, "template_not_found")
    return t
  }

  /** What a template installs: its own compose file and files, or those of its repository read now. */
  async content(source: string, t: Template, signal?: AbortSignal): Promise<Content> {
    if (!t.repository) {
      const files = t.files ?? {}
      return {
        compose: t.compose ?? "",
        files,
        digest: digestOf({ compose: t.compose ?? "", files }, t.variables),
        commit: null,
      }
    }
    const { url, path, ref } = t.repository
    const fetched = await fetchTree({
      url,
      ref,
      path,
      resolve: await gitResolve(url, await this.sources.reach(source)),
      limits: DEFAULT_LIMITS,
      timeout: 120,
      signal,
    })
    const content = {
      compose: fetched.compose,
      files: fetched.files,
      digest: digestOf(fetched, t.variables),
      commit: fetched.commit,
    }
    mkdirSync(join(this.dir, "resolved", source), { recursive: true })
    writeJson(this.resolvedFile(source, t.id), content)
    return content
  }

  /** The content a template had when its repository was last read (a refresh, a preview), without reading it now. */
  private async knownContent(source: string, t: Template): Promise<Content | null> {
    if (!t.repository) return this.content(source, t)
    return readJson<Content | null>(this.resolvedFile(source, t.id), null)
  }

  private resolvedFile(source: string, id: string): string {
    return join(this.dir, "resolved", source, `${id}.json`)
  }

  /**
   * A template filled with `values` for stack `name`, and what the guard says of it, changing nothing:
   * the compose file, the environment (a secret's value never shown), the guard's verdict with compose's
   * model (services, images, ports, volumes, binds), what else to know, and what blocks the install.
   */
  async preview(source: string, id: string, input: InstallInput, caller: Caller) {
    const t = await this.template(source, id, caller.admin)
    const name = stackName(input.name)
    const content = await this.content(source, t, caller.signal)
    const { env } = fill(t.variables, input.values)
    const guard = await this.guard(name, content, env)
    const blockers = [
      ...(this.parts.stacks.has(name) ? [`a stack named ${name} exists here`] : []),
      ...(guard.ok ? [] : [`the guard refuses it: ${guard.message}`]),
    ]
    const repos = await this.parts.backups.repos()
    const backup = input.backup === null ? null : (input.backup ?? repos[0]?.name ?? null)
    if (backup && !repos.some((r) => r.name === backup))
      throw notFound(`no backup repository named ${backup}`, "repository_not_found")
    const repo = repos.find((r) => r.name === backup)
    return {
      name,
      source,
      template: t.id,
      title: t.title,
      version: t.version,
      digest: content.digest,
      commit: content.commit,
      compose: content.compose,
      files: Object.keys(content.files).sort(),
      env: env.map((e) => ({ key: e.key, value: e.secret ? null : e.value, secret: e.secret, generated: e.generated })),
      guard: { ...guard, warnings: [...t.warnings, ...guard.warnings] },
      blockers,
      update_policy: input.update_policy === false ? null : INSTALL_POLICY,
      backup: repo ? { repository: repo.name, schedule: repo.schedule ?? INSTALL_BACKUP_SCHEDULE } : null,
      note: renderNote(t.note, env),
      env_values: env,
      content,
      t,
    }
  }

  /** The guard's verdict on a candidate: compose's model of it as the deploy would check it. */
  private async guard(name: string, content: Content, env: { key: string; value: string; secret: boolean }[]) {
    const warnings = RISKS.filter(([re]) => re.test(content.compose)).map(([, w]) => w)
    try {
      const model = await this.parts.stacks.model(name, content.compose, env, content.files)
      return {
        ok: true,
        code: null,
        message: null,
        services: model.services,
        images: model.images,
        ports: model.ports,
        volumes: model.volumes.filter((v) => !v.anonymous).map((v) => v.name ?? v.key ?? ""),
        binds: model.binds.map((b) => ({ service: b.service, source: b.source, target: b.target })),
        warnings,
      }
    } catch (err) {
      const kind = errorKind(err)
      if (kind !== "invalid" && kind !== "refused" && kind !== "too_large") throw err
      const e = err as { code: string; message: string }
      return {
        ok: false,
        code: e.code,
        message: e.message,
        services: [],
        images: [],
        ports: [],
        volumes: [],
        binds: [],
        warnings,
      }
    }
  }

  /**
   * Installs a template as stack `name` (dry_run: the preview): a deploy of a new stack (409
   * `stack_exists` for a name taken), the template remembered with the stack, then the update policy and
   * the backup schedule. The answer carries the generated secrets, once.
   */
  async install(source: string, id: string, input: InstallInput, caller: Caller) {
    const p = await this.preview(source, id, input, caller)
    const { env_values, content, t, ...preview } = p
    if (input.dry_run) return { ...preview, dry_run: true as const }
    if (this.parts.stacks.has(p.name)) throw conflict(`a stack named ${p.name} exists here`, "stack_exists")
    if (!p.guard.ok)
      throw invalid(`the guard refuses ${t.title}: ${p.guard.message}`, p.guard.code ?? "host_path_refused")
    const env: EnvInput = env_values.map(({ key, value, secret }) => ({ key, value, secret }))
    const { stack } = await this.parts.verbs.deploy(p.name, content.compose, {
      env,
      files: content.files,
      fresh: true,
      watch: input.watch,
      orchestrator: input.orchestrator,
      signal: caller.signal,
      by: caller.by,
    })
    const time = new Date(this.now()).toISOString()
    const record: InstalledFrom = {
      source,
      id: t.id,
      title: t.title,
      version: t.version,
      digest: content.digest,
      compose: content.compose,
      commit: content.commit,
      installed_at: time,
      updated_at: time,
    }
    this.writeRecord(p.name, record)
    const policy = p.update_policy ? await this.parts.updateRecords.setPolicy(p.name, p.update_policy) : null
    const backup = p.backup ? await this.scheduleBackup(p.backup.repository, p.name) : null
    this.parts.events.publish({
      type: "catalog",
      action: "installed",
      name: p.name,
      message: `installed ${t.title} (${source}/${t.id}${t.version ? ` ${t.version}` : ""}) as ${p.name}`,
    })
    return {
      ...preview,
      dry_run: false as const,
      stack,
      installed: record,
      policy,
      backup,
      generated: env_values.filter((e) => e.generated).map((e) => ({ key: e.key, value: e.value })),
    }
  }

  /** Adds the stack to a repository's scheduled backups (a repository without a schedule gets a nightly one for this stack alone). */
  private async scheduleBackup(repository: string, name: string) {
    const repo = (await this.parts.backups.repos()).find((r) => r.name === repository)!
    const { name: _, repository: __, last_check: ___, ...settings } = repo
    if (repo.schedule && !repo.stacks) return { repository, schedule: repo.schedule }
    const stacks = repo.schedule ? [...new Set([...(repo.stacks ?? []), name])] : [name]
    const schedule = repo.schedule ?? INSTALL_BACKUP_SCHEDULE
    await this.parts.backups.editRepo(repository, { ...settings, schedule, stacks })
    return { repository, schedule }
  }

  private recordFile(name: string): string {
    return join(this.parts.stacks.records(name), "template.json")
  }

  /** Writes what a stack was installed from; nothing for a stack removed meanwhile. */
  private writeRecord(name: string, record: InstalledFrom): void {
    if (!this.parts.stacks.has(name)) return
    writeJson(this.recordFile(name), record)
    this.installed.set(name, record)
  }

  /** What stack `name` was installed from (404 `no_template` for a stack that was not). */
  async installedFrom(name: string): Promise<InstalledFrom> {
    await this.parts.stacks.state(name)
    const record = await this.installed.get(name)
    if (!record) throw notFound(`stack ${name} was not installed from a template`, "no_template")
    return record
  }

  /**
   * Whether the stack's template has a newer version in its source: the compose diff from the stack's
   * compose file to the template's, whether the stack's was edited since its install, and the new
   * variables an update will ask for. A template from a repository is compared with its content as
   * last read (a refresh reads the installed ones).
   */
  async status(name: string, admin: boolean) {
    const record = await this.installedFrom(name)
    const stack = await this.parts.stacks.read(name)
    const t = await this.template(record.source, record.id, admin).catch(() => null)
    const latest = t ? await this.knownContent(record.source, t) : null
    const update = !!latest && latest.digest !== record.digest
    const known = new Set(stack.env.map((e) => e.key))
    return {
      stack: name,
      installed: record,
      template: t ? { source: record.source, id: t.id, title: t.title, version: t.version } : null,
      latest: latest && t ? { version: t.version, digest: latest.digest, commit: latest.commit } : null,
      update_available: update,
      edited: stack.compose !== record.compose,
      diff:
        latest && update
          ? unifiedDiff(stack.compose, latest.compose, [`${name} (this stack)`, `${t!.title} (template)`])
          : "",
      new_variables: update && t ? t.variables.filter((v) => !known.has(v.key)) : [],
      missing: t ? null : `${record.source} has no template ${record.id} any more`,
    }
  }

  /**
   * The template's newer version deployed on the stack as a watched deploy through the update guard: a
   * failed watch rolls back to what ran before and the stack keeps its record. New variables take the
   * values given, their defaults or generated secrets; the stack's environment stays otherwise.
   */
  async update(name: string, input: { values?: Record<string, string>; watch?: number }, caller: Caller) {
    const record = await this.installedFrom(name)
    const t = await this.template(record.source, record.id, caller.admin)
    const latest = await this.content(record.source, t, caller.signal)
    if (latest.digest === record.digest)
      throw conflict(`stack ${name} runs the template's current version already`, "no_update")
    const stack = await this.parts.stacks.read(name)
    const known = new Set(stack.env.map((e) => e.key))
    const added = fill(
      t.variables.filter((v) => !known.has(v.key)),
      input.values,
    ).env
    const env: EnvInput = [
      ...stack.env.map((e) => ({ key: e.key, value: null, secret: e.secret })),
      ...added.map(({ key, value, secret }) => ({ key, value, secret })),
    ]
    const { stack: view } = await this.parts.verbs.deploy(name, latest.compose, {
      env,
      files: t.files || t.repository || Object.keys(latest.files).length ? latest.files : undefined,
      watch: input.watch ?? this.parts.updateWatch,
      signal: caller.signal,
      by: caller.by,
    })
    const kept = view.update?.verdict === "rolled_back" || view.update?.verdict === "rollback_failed"
    const updated: InstalledFrom = kept
      ? record
      : {
          ...record,
          title: t.title,
          version: t.version,
          digest: latest.digest,
          compose: latest.compose,
          commit: latest.commit,
          updated_at: new Date(this.now()).toISOString(),
        }
    if (!kept) this.writeRecord(name, updated)
    this.parts.events.publish({
      type: "catalog",
      action: "updated",
      name,
      message: `update of ${name} to ${t.title}${t.version ? ` ${t.version}` : ""}: ${view.update?.verdict ?? "deployed"}`,
    })
    return {
      stack: view,
      installed: updated,
      generated: added.filter((e) => e.generated).map((e) => ({ key: e.key, value: e.value })),
    }
  }

  /** A source read now (on demand), then its installed templates' repositories; an event says how it went. */
  async refresh(name: string, signal?: AbortSignal) {
    const source = await this.sources.refresh(name, signal)
    const read = source.last_read!
    this.parts.events.publish({
      type: "catalog",
      action: read.ok ? "refreshed" : "refresh_failed",
      name,
      ...(read.ok ? {} : { level: "error" }),
      message: read.ok
        ? `template source ${name} read: ${read.templates} templates`
        : `template source ${name} could not be read (its last good copy stays): ${read.error}`,
    })
    if (read.ok) await this.refreshInstalled(name)
    return source
  }

  /** Reads each kept source when its schedule is due (looked at every 30 s), one at a time, until `signal`. */
  async schedules(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      for (const s of await this.sources.list()) {
        if (signal.aborted) break
        const from = Date.parse(s.last_read?.time ?? s.added)
        const due = nextDue(s.schedule, from)
        if (due !== null && due <= this.now()) await this.refresh(s.name, signal).catch(() => {})
      }
      await new Promise((r) => {
        const t = setTimeout(r, 30_000)
        signal.addEventListener("abort", () => (clearTimeout(t), r(undefined)), { once: true })
      })
    }
  }

  /** After a source was read: the repositories of its installed templates read again, so their updates show (what each stack was installed from is kept in memory). */
  async refreshInstalled(source: string): Promise<void> {
    for (const name of this.parts.stacks.names()) {
      const record = await this.installed.get(name)
      if (record?.source !== source) continue
      const t = (await this.sources.templates(source)).find((x) => x.id === record.id)
      if (t?.repository) await this.content(source, t).catch(() => {})
    }
  }

  /**
   * Stack `name` saved as a template of the folder format in the `saved` source: its secrets left out
   * and made variables (generated at install), its other keys variables with their values as defaults.
   */
  async save(
    name: string,
    input: { id?: string; title?: string; description?: string; categories?: string[]; replace?: boolean },
  ) {
    const stack = await this.parts.stacks.read(name)
    await readCompose(stack.compose)
    const id = input.id ?? slug(name, new Set())
    if (!TEMPLATE_ID.test(id)) throw invalid(`${JSON.stringify(id)} is not a template id`, "invalid_id")
    const folder = join(this.sources.savedDir, id)
    if (existsSync(folder) && !input.replace)
      throw conflict(`a saved template ${id} exists: give replace: true to replace it`, "template_exists")
    const { compose, keys } = await unsecretCompose(stack.compose, this.parts.secretKeys)
    const files = templateFiles(
      { ...stack, compose },
      keys,
      {
        title: text(input.title, 120) || name,
        description: text(input.description, 2000) || `Saved from the stack ${name}.`,
        categories: categoriesOf(input.categories ?? ["saved"]),
      },
      this.parts.secretKeys,
    )
    const scratch = `${folder}.tmp-${process.pid}-${this.now()}`
    rmSync(scratch, { recursive: true, force: true })
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(join(scratch, path, ".."), { recursive: true })
      writeFileAtomic(join(scratch, path), content)
    }
    rmSync(folder, { recursive: true, force: true })
    renameSync(scratch, folder)
    this.parts.events.publish({
      type: "catalog",
      action: "saved",
      name,
      message: `saved ${name} as the template ${id}`,
    })
    return { source: "saved", id, files, secrets: keys }
  }

  /** A saved template removed. */
  async removeSaved(id: string): Promise<void> {
    if (!TEMPLATE_ID.test(id) || !existsSync(join(this.sources.savedDir, id)))
      throw notFound(`no saved template ${id}`, "template_not_found")
    rmSync(join(this.sources.savedDir, id), { recursive: true, force: true })
  }

  /**
   * A template's logo, served from here: a folder template's own file, or its URL fetched once by the
   * service (as its source may reach) and cached; a failure is not tried again for ten minutes.
   */
  async logo(source: string, id: string, admin: boolean): Promise<{ type: string; body: Uint8Array }> {
    const t = await this.template(source, id, admin)
    if (!t.logo) throw notFound(`${t.title} has no logo`, "no_logo")
    if ("data" in t.logo) return { type: t.logo.type, body: new TextEncoder().encode(t.logo.data) }
    const key = new Bun.CryptoHasher("sha256").update(t.logo.url).digest("hex")
    const file = join(this.dir, "logos", key)
    if (existsSync(file)) return { type: readFileSync(`${file}.type`, "utf8"), body: readFileSync(file) }
    if ((this.logoFailed.get(key) ?? 0) > this.now())
      throw notFound(`the logo of ${t.title} could not be fetched; tried again later`, "no_logo")
    try {
      const { body } = await outboundGet(t.logo.url, {
        reach: await this.sources.reach(source),
        maxBytes: 512 * 1024,
        timeout: 15,
        accept: "image/*",
      })
      const type = imageType(body)
      if (!type) throw refused("it is not a PNG, JPEG, GIF, WebP, ICO or SVG image", "not_an_image")
      mkdirSync(join(this.dir, "logos"), { recursive: true })
      writeFileAtomic(`${file}.type`, type)
      writeFileAtomic(file, body)
      return { type, body }
    } catch (err) {
      this.logoFailed.set(key, this.now() + 600_000)
      throw notFound(`the logo of ${t.title} could not be fetched: ${(err as Error).message}`, "no_logo")
    }
  }
}

const logoPath = (source: string, t: Template) =>
  t.logo ? `/api/catalog/logos/${encodeURIComponent(source)}/${encodeURIComponent(t.id)}` : null

/** A template as the list shows it. */
export const summary = (source: string, t: Template) => ({
  source,
  id: t.id,
  title: t.title,
  description: t.description,
  categories: t.categories,
  kind: t.kind,
  version: t.version,
  logo: logoPath(source, t),
  logo_url: t.logo && "url" in t.logo ? t.logo.url : null,
  admin_only: t.admin_only,
})

/** A template whole, as its page shows it: its variables, note, warnings and compose file (or where it lies). */
export const detail = (source: string, t: Template) => ({
  ...summary(source, t),
  note: t.note,
  variables: t.variables,
  warnings: t.warnings,
  compose: t.compose ?? null,
  files: Object.keys(t.files ?? {}).sort(),
  repository: t.repository ? { ...t.repository, url: maskUrl(t.repository.url) } : null,
})

/** An image's type from its first bytes (what the service serves it as), or null. */
export function imageType(b: Uint8Array): string | null {
  const starts = (...bytes: number[]) => bytes.every((x, i) => b[i] === x)
  if (starts(0x89, 0x50, 0x4e, 0x47)) return "image/png"
  if (starts(0xff, 0xd8, 0xff)) return "image/jpeg"
  if (starts(0x47, 0x49, 0x46, 0x38)) return "image/gif"
  if (starts(0x52, 0x49, 0x46, 0x46) && String.fromCharCode(...b.subarray(8, 12)) === "WEBP") return "image/webp"
  if (starts(0x00, 0x00, 0x01, 0x00)) return "image/x-icon"
  const head = new TextDecoder().decode(b.subarray(0, 512)).trimStart()
  if (/^(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*(<!DOCTYPE svg[^>]*>\s*)?<svg[\s>]/i.test(head)) return "image/svg+xml"
  return null
}
