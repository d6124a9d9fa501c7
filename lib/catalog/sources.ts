// The template sources the service keeps (<data>/catalog/sources.json): a Portainer list at a URL or
// in a git repository, or a folder of templates of our own format in a git repository; each read on
// its schedule and on demand. What a read found is kept (<data>/catalog/cache/<name>.json) until a
// later read succeeds: a source that cannot be read keeps its last good copy, and its status says
// why the last read failed. Two sources are the service's own: `curated`, the catalog shipped with it
// (lib/catalog/shipped/), and `saved`, the stacks saved as templates here (<data>/catalog/saved/).
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs"
import { join } from "node:path"
import { maskUrl } from "../credentials/urls.ts"
import { readJson, writeJson } from "../data/datadir.ts"
import { conflict, invalid, notFound } from "../errors/errors.ts"
import { fetchFiles, type FilesRequest } from "../git/tree.ts"
import { protocolOf } from "../git/run.ts"
import { checkSchedule } from "../updates/records.ts"
import { folderTemplate, fromFolder } from "./folder.ts"
import { checkedAddress, outboundGet, parseHttpUrl, type Reach } from "./outbound.ts"
import { parseSource, type Parsed } from "./parse.ts"
import { shipped } from "./shipped.gen.ts"
import type { Template } from "./template.ts"

export const BUILT_IN = ["curated", "saved"] as const
export const SOURCE_NAME = /^[a-z0-9][a-z0-9-]{0,62}$/
export const FORMATS = ["portainer", "folder"] as const
export const DEFAULT_SCHEDULE = "6h"
/** The largest Portainer list read. */
export const LIST_MAX_BYTES = 8 * 1024 * 1024

export interface SourceInput {
  name: string
  format: (typeof FORMATS)[number]
  url?: string
  git?: { url: string; ref?: string; path?: string }
  local?: boolean
  schedule?: string
}

export interface LastRead {
  time: string
  ok: boolean
  error: string | null
  templates: number
  warnings: string[]
}

export interface Source {
  name: string
  format: (typeof FORMATS)[number]
  url: string | null
  git: { url: string; ref: string; path: string } | null
  /** An admin said it lives on their own network: it may reach private addresses. */
  local: boolean
  schedule: string
  added: string
  last_read: LastRead | null
  /** When a read last succeeded (the copy the catalog shows), null before the first. */
  last_good: string | null
}

interface Cached extends Parsed {
  time: string
  commit: string | null
}

/** A source as the API shows it: its URLs through maskUrl, whether it is one of the service's own. */
export const sourceView = (s: Source) => ({
  ...s,
  url: s.url && maskUrl(s.url),
  git: s.git && { ...s.git, url: maskUrl(s.git.url) },
  built_in: false,
})

const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err)).slice(0, 1000)

export class Sources {
  private readonly dir: string
  private reading = new Map<string, Promise<Source>>()
  private memo = new Map<string, { mtime: number; templates: Template[] }>()
  private curated: Template[] | undefined

  constructor(
    dataDir: string,
    private readonly now: () => number = Date.now,
  ) {
    this.dir = join(dataDir, "catalog")
  }

  get file(): string {
    return join(this.dir, "sources.json")
  }

  get savedDir(): string {
    return join(this.dir, "saved")
  }

  async list(): Promise<Source[]> {
    return readJson<Source[]>(this.file, [])
  }

  async get(name: string): Promise<Source> {
    const s = (await this.list()).find((x) => x.name === name)
    if (!s) throw notFound(`no template source named ${name}`, "source_not_found")
    return s
  }

  /** Where a source's templates may reach (a built-in source reaches only public addresses). */
  async reach(name: string): Promise<Reach> {
    return (BUILT_IN as readonly string[]).includes(name) ? { local: false } : { local: (await this.get(name)).local }
  }

  /** Keeps a new source (checked first); it is read at once by the caller. */
  async add(input: SourceInput): Promise<Source> {
    if (!SOURCE_NAME.test(input.name) || (BUILT_IN as readonly string[]).includes(input.name))
      throw invalid(
        `${JSON.stringify(input.name.slice(0, 80))} is not a source name (lower case letters, digits and dashes; not curated or saved)`,
        "invalid_name",
      )
    if (!!input.url === !!input.git) throw invalid("give either url or git", "invalid_source")
    if (input.url) {
      parseHttpUrl(input.url)
      if (input.format === "folder")
        throw invalid("a folder of templates is read from a git repository: give git", "invalid_source")
    }
    if (input.git) {
      const protocol = protocolOf(input.git.url)
      if ((protocol === "file" || protocol === "ssh") && !input.local)
        throw invalid("a repository on this host or over ssh is a source an admin marks local", "invalid_source")
      if (/\/\/[^/]*@/.test(input.git.url)) throw invalid("the repository URL must hold no credentials", "invalid_url")
    }
    const schedule = input.schedule?.trim() || DEFAULT_SCHEDULE
    checkSchedule(schedule)
    const source: Source = {
      name: input.name,
      format: input.format,
      url: input.url ?? null,
      git: input.git
        ? {
            url: input.git.url,
            ref: input.git.ref?.trim() || "HEAD",
            path: input.git.path?.trim() || (input.format === "folder" ? "." : "templates.json"),
          }
        : null,
      local: input.local ?? false,
      schedule,
      added: new Date(this.now()).toISOString(),
      last_read: null,
      last_good: null,
    }
    await this.change((all) => {
      if (all.some((s) => s.name === source.name))
        throw conflict(`a template source named ${source.name} is kept already`, "source_exists")
      return [...all, source]
    })
    return source
  }

  async remove(name: string): Promise<void> {
    await this.get(name)
    await this.change((all) => all.filter((s) => s.name !== name))
    rmSync(this.cacheFile(name), { force: true })
    rmSync(join(this.dir, "resolved", name), { recursive: true, force: true })
    this.memo.delete(name)
  }

  /** Reads the source now (one read at a time per source: a second ask joins the one under way). */
  refresh(name: string, signal?: AbortSignal): Promise<Source> {
    let running = this.reading.get(name)
    if (!running) {
      running = this.read(name, signal).finally(() => this.reading.delete(name))
      this.reading.set(name, running)
    }
    return running
  }

  /** The templates of a source: the shipped ones, the saved ones, or a kept source's last good copy. */
  async templates(name: string): Promise<Template[]> {
    if (name === "curated") return (this.curated ??= this.shippedTemplates())
    if (name === "saved") return this.savedTemplates()
    await this.get(name)
    const file = this.cacheFile(name)
    if (!existsSync(file)) return []
    const mtime = statSync(file).mtimeMs
    const memo = this.memo.get(name)
    if (memo?.mtime === mtime) return memo.templates
    const templates = (await readJson<Cached>(file, { templates: [] } as unknown as Cached)).templates
    this.memo.set(name, { mtime, templates })
    return templates
  }

  private shippedTemplates(): Template[] {
    const taken = new Set<string>()
    return Object.entries(shipped).map(([id, files]) => folderTemplate(files, id, taken))
  }

  /** The saved templates: folders the service wrote itself (a folder that does not read is left out). */
  private savedTemplates(): Template[] {
    if (!existsSync(this.savedDir)) return []
    const files: Record<string, string> = {}
    for (const e of readdirSync(this.savedDir, { recursive: true, withFileTypes: true }))
      if (e.isFile()) {
        const path = join(e.parentPath, e.name).slice(this.savedDir.length + 1)
        files[path] = readFileSync(join(this.savedDir, path), "utf8")
      }
    return Object.keys(files).length ? fromFolder(files).templates : []
  }

  private cacheFile(name: string): string {
    return join(this.dir, "cache", `${name}.json`)
  }

  private async read(name: string, signal?: AbortSignal): Promise<Source> {
    const source = await this.get(name)
    let last: LastRead
    let cached: Cached | undefined
    try {
      const { parsed, commit } = await this.fetchSource(source, signal)
      cached = { ...parsed, commit, time: new Date(this.now()).toISOString() }
      last = { time: cached.time, ok: true, error: null, templates: parsed.templates.length, warnings: parsed.warnings }
    } catch (err) {
      last = { time: new Date(this.now()).toISOString(), ok: false, error: errorText(err), templates: 0, warnings: [] }
    }
    if (cached) {
      mkdirSync(join(this.dir, "cache"), { recursive: true })
      writeJson(this.cacheFile(name), cached)
    }
    let updated = source
    await this.change((all) =>
      all.map((s) =>
        s.name === name ? (updated = { ...s, last_read: last, last_good: cached ? cached.time : s.last_good }) : s,
      ),
    )
    return updated
  }

  private async fetchSource(source: Source, signal?: AbortSignal): Promise<{ parsed: Parsed; commit: string | null }> {
    const reach = { local: source.local }
    if (source.url) {
      const { body } = await outboundGet(source.url, {
        reach,
        maxBytes: LIST_MAX_BYTES,
        timeout: 60,
        accept: "application/json",
        signal,
      })
      return { parsed: await parseSource({ format: "portainer", text: new TextDecoder().decode(body) }), commit: null }
    }
    const git = source.git!
    const list = source.format === "portainer"
    const request: FilesRequest = {
      url: git.url,
      ref: git.ref,
      path: git.path,
      file: list,
      resolve: await gitResolve(git.url, reach),
      timeout: 120,
      signal,
      limits: list
        ? { fileBytes: LIST_MAX_BYTES, totalBytes: LIST_MAX_BYTES, files: 1, fetchBytes: 64 * 1024 * 1024 }
        : { fileBytes: 1024 * 1024, totalBytes: 32 * 1024 * 1024, files: 4000, fetchBytes: 256 * 1024 * 1024 },
    }
    const fetched = await fetchFiles(request)
    const parsed = list
      ? await parseSource({ format: "portainer", text: fetched.files[git.path] ?? "" })
      : await parseSource({ format: "folder", files: fetched.files })
    return { parsed, commit: fetched.commit }
  }

  /** Runs a read-change-write of sources.json, one at a time. */
  private writing: Promise<unknown> = Promise.resolve()
  private change(fn: (all: Source[]) => Source[]): Promise<void> {
    const next = this.writing
      .catch(() => {})
      .then(async () => {
        mkdirSync(this.dir, { recursive: true })
        writeJson(this.file, fn(await this.list()))
      })
    this.writing = next
    return next
  }
}

/**
 * What git connects to for an http(s) repository a source or template names: the URL's host pinned to
 * the address checked against the source's reach (`host:port:address` for http.curloptResolve). A
 * repository over ssh or on this host is for a local source only.
 */
export async function gitResolve(url: string, reach: Reach): Promise<string[]> {
  const protocol = protocolOf(url)
  if (protocol === "file" || protocol === "ssh") {
    if (!reach.local)
      throw invalid("a repository on this host or over ssh is for a source an admin marked local", "invalid_source")
    return []
  }
  const u = parseHttpUrl(url)
  const address = await checkedAddress(u, reach)
  const port = u.port || (u.protocol === "https:" ? "443" : "80")
  return [`${u.hostname}:${port}:${address.includes(":") ? `[${address}]` : address}`]
}
