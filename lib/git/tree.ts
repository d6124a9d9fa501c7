// A stack's files out of a repository, read from git's object database, never from a checkout: a
// shallow, partial fetch of one ref into a bare repository of its own (`--filter=blob:limit`: the
// server leaves out every blob over the file cap, so a 2 GiB file is never sent; a server that
// ignores the filter is bounded by the fetch cap, the largest pack git may write, past which it is
// killed), the tree listed, each blob's size read (`cat-file --batch-check`) before any is read, and
// the blobs read by id (`cat-file --batch`). Nothing of the repository is written as files, so a
// symlink in it leads nowhere and a path with `..` cannot be made: a symlink or a submodule beside
// the compose file is refused by name, a blob over the cap (or left out by the server) is refused
// before it is read, and hidden or binary files are left out and listed as skipped.
// The compose file and the files beside it (its folder in the repository, recursively) become the
// stack's compose file and files; the stack store's own guards (paths, compose's model, host paths)
// decide the rest.
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, posix } from "node:path"
import { DomainError, invalid, isDomainError, upstream } from "../errors/errors.ts"
import { lastLine, mustGit, protocolOf, runGit, type GitRun, type SshAuth } from "./run.ts"

export interface TreeLimits {
  /** The largest blob read (bytes). */
  fileBytes: number
  /** All blobs read together (bytes). */
  totalBytes: number
  /** The most files beside the compose file. */
  files: number
  /** The largest pack a fetch may write (bytes): the bound when a server ignores the blob filter. */
  fetchBytes: number
}

export const DEFAULT_LIMITS: TreeLimits = {
  fileBytes: 1024 * 1024,
  totalBytes: 4 * 1024 * 1024,
  files: 64,
  fetchBytes: 256 * 1024 * 1024,
}

export interface Fetched {
  commit: string
  compose: string
  /** Relative to the compose file's folder → text. */
  files: Record<string, string>
  /** Entries left out, with why (a hidden or binary file). */
  skipped: string[]
}

export interface FetchRequest {
  url: string
  ref: string
  /** The compose file's path in the repository. */
  path: string
  token?: string
  ssh?: SshAuth
  limits?: TreeLimits
  timeout?: number
  signal?: AbortSignal
  /** Addresses git connects to instead of resolving the URL's host (GitRun.resolve). */
  resolve?: string[]
}

interface Entry {
  mode: string
  type: string
  oid: string
  path: string
}

/** A refusal of what the repository holds; with the commit (beside `error` in the answer) once it is known. */
const refused = (message: string, kind: "invalid" | "too_large", commit?: string) =>
  new DomainError(kind, "git_refused", message, commit ? { fields: { commit } } : {})

/** The commit a refusal of fetchTree names, if it got that far. */
export const refusedCommit = (err: unknown): string | null => {
  const commit = isDomainError(err) ? err.fields?.commit : undefined
  return typeof commit === "string" ? commit : null
}

/** The compose file's path in the repository, checked: relative, no empty, `.` or `..` parts. */
export function composePath(path: string): string {
  const parts = path.split("/")
  if (!path || path.startsWith("/") || parts.some((p) => !p || p === "." || p === ".." || p.includes("\\")))
    throw invalid(
      `the compose file's path ${JSON.stringify(path.slice(0, 200))} must be relative to the repository's root, without '.' or '..' parts`,
      "invalid_git_path",
    )
  return path
}

/** Whether a fetch into `dir` stopped at the cap: a pack file as large as it (git was killed writing it). */
function packCapped(dir: string, bytes: number): boolean {
  const packs = join(dir, "objects", "pack")
  return readdirSync(packs).some((f) => statSync(join(packs, f)).size >= bytes)
}

/** `ls-tree -r -z` lines. */
function parseTree(out: Uint8Array): Entry[] {
  return new TextDecoder()
    .decode(out)
    .split("\0")
    .filter(Boolean)
    .map((line) => {
      const tab = line.indexOf("\t")
      const [mode, type, oid] = line.slice(0, tab).split(" ") as [string, string, string]
      return { mode, type, oid, path: line.slice(tab + 1) }
    })
}

/** `cat-file --batch` output: each blob's bytes in the order asked. */
function parseBatch(out: Uint8Array, count: number): Uint8Array[] {
  const blobs: Uint8Array[] = []
  let at = 0
  for (let i = 0; i < count; i++) {
    const nl = out.indexOf(10, at)
    const size = Number(new TextDecoder().decode(out.subarray(at, nl)).split(" ")[2])
    blobs.push(out.subarray(nl + 1, nl + 1 + size))
    at = nl + 1 + size + 1
  }
  return blobs
}

/** An entry of the fetched tree that may be read: its path relative to the folder asked for, and its size. */
interface Present extends Entry {
  rel: string
  size: number
}

/** What `fetched` hands its reader: the commit, the entries that may be read, and the reader of their blobs. */
interface Listing {
  commit: string
  present: Present[]
  skipped: string[]
  read(entries: Present[]): Promise<Uint8Array[]>
}

/**
 * Fetches `ref` (shallow and partial) into a bare repository of its own, lists `folder` (recursively;
 * "." for the whole tree, or the one file `only`), refuses a symbolic link, a submodule and a blob
 * over the cap, leaves hidden files out, and hands the rest to `use`; the repository is removed after.
 */
async function fetched<T>(
  req: Omit<FetchRequest, "path">,
  folder: string,
  use: (listing: Listing) => Promise<T>,
  only?: string,
): Promise<T> {
  const limits = req.limits ?? DEFAULT_LIMITS
  const dir = mkdtempSync(join(tmpdir(), "hm-git-"))
  const run: GitRun = {
    cwd: dir,
    protocol: protocolOf(req.url),
    token: req.token,
    ssh: req.ssh,
    timeout: req.timeout,
    signal: req.signal,
    resolve: req.resolve,
  }
  const lines = async (args: string[], stdin?: string) =>
    new TextDecoder()
      .decode(
        await mustGit(args, { ...run, ...(stdin === undefined ? {} : { stdin: new TextEncoder().encode(stdin) }) }),
      )
      .split("\n")
      .filter(Boolean)
  try {
    await mustGit(["init", "-q", "--bare", "."], run)
    const fetch = await runGit(
      [
        "fetch",
        "-q",
        "--depth=1",
        "--no-tags",
        "--no-recurse-submodules",
        `--filter=blob:limit=${limits.fileBytes + 1}`,
        "--",
        req.url,
        req.ref,
      ],
      { ...run, fileBytes: limits.fetchBytes },
    )
    if (fetch.code !== 0) {
      if (packCapped(dir, limits.fetchBytes))
        throw refused(
          `the commit's objects are over the ${limits.fetchBytes}-byte limit of a fetch (the server sent files over the file limit too)`,
          "too_large",
        )
      throw upstream(`git fetch failed: ${lastLine(fetch.stderr)}`, "git_failed")
    }
    const [commit] = await lines(["rev-parse", "--verify", "FETCH_HEAD^{commit}"])
    if (!commit) throw upstream("git fetch found no commit", "git_failed")
    // Blobs the server left out (over the cap): listed, never fetched (GIT_NO_LAZY_FETCH).
    const missing = new Set(
      (await lines(["rev-list", "--objects", "--missing=print", commit]))
        .filter((l) => l.startsWith("?"))
        .map((l) => l.slice(1)),
    )
    const pathspec = only ? ["--", only] : folder === "." ? [] : ["--", `${folder}/`]
    const listed = parseTree(await mustGit(["ls-tree", "-r", "-z", "--full-tree", commit, ...pathspec], run))
    const inFolder = (e: Entry) => (folder === "." ? e.path : e.path.slice(folder.length + 1))
    const skipped: string[] = []
    const kept: (Entry & { rel: string })[] = []
    for (const e of listed) {
      const rel = inFolder(e)
      if (e.mode === "120000")
        throw refused(
          `${e.path} is a symbolic link; a stack's files are read from the repository as plain files, never through a link`,
          "invalid",
          commit,
        )
      if (e.type === "commit") throw refused(`${e.path} is a submodule; submodules are not fetched`, "invalid", commit)
      if (rel.split("/").some((s) => s.startsWith("."))) {
        skipped.push(`${e.path} (hidden)`)
        continue
      }
      if (missing.has(e.oid))
        throw refused(
          `${e.path} is over the ${limits.fileBytes}-byte limit of a stack's file (the server left it out of the fetch)`,
          "too_large",
          commit,
        )
      kept.push({ ...e, rel })
    }
    const sizes = (
      kept.length ? await lines(["cat-file", "--batch-check"], kept.map((e) => `${e.oid}\n`).join("")) : []
    ).map((l) => Number(l.split(" ")[2]))
    const present = kept.map((e, i) => ({ ...e, size: sizes[i] ?? 0 }))
    for (const e of present)
      if (e.size > limits.fileBytes)
        throw refused(
          `${e.path} is ${e.size} bytes, over the ${limits.fileBytes}-byte limit of a stack's file`,
          "too_large",
          commit,
        )
    const read = async (entries: Present[]) =>
      entries.length
        ? parseBatch(
            await mustGit(["cat-file", "--batch"], {
              ...run,
              stdin: new TextEncoder().encode(entries.map((e) => `${e.oid}\n`).join("")),
            }),
            entries.length,
          )
        : []
    return await use({ commit, present, skipped, read })
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** The commit `ref` names at `url`, and the compose file with the files beside it (see the module's comment). */
export async function fetchTree(req: FetchRequest): Promise<Fetched> {
  const path = composePath(req.path)
  const limits = req.limits ?? DEFAULT_LIMITS
  return fetched(req, posix.dirname(path), async ({ commit, present: wanted, skipped, read }) => {
    const compose = wanted.find((e) => e.path === path)
    if (!compose)
      throw invalid(`${path} is not a file in the repository at ${commit.slice(0, 12)}`, "git_compose_missing", {
        fields: { commit },
      })
    if (wanted.length - 1 > limits.files)
      throw refused(
        `the folder of ${path} holds ${wanted.length - 1} files, over the limit of ${limits.files}`,
        "too_large",
        commit,
      )
    const total = wanted.reduce((n, e) => n + e.size, 0)
    if (total > limits.totalBytes)
      throw refused(
        `the folder of ${path} holds ${total} bytes, over the limit of ${limits.totalBytes}`,
        "too_large",
        commit,
      )
    const blobs = await read(wanted)
    const text = new TextDecoder("utf-8", { fatal: true })
    const files: Record<string, string> = {}
    let composeText = ""
    wanted.forEach((e, i) => {
      let content: string
      try {
        content = text.decode(blobs[i])
      } catch {
        if (e === compose) throw invalid(`${path} is not UTF-8 text`, "invalid_compose", { fields: { commit } })
        return void skipped.push(`${e.path} (binary)`)
      }
      if (e === compose) composeText = content
      else files[e.rel] = content
    })
    return { commit, compose: composeText, files, skipped }
  })
}

/** What `fetchFiles` reads: a folder of the repository (recursively; "." for its root), or with `file` that one file. */
export interface FilesRequest extends Omit<FetchRequest, "path"> {
  path: string
  file?: boolean
}

/**
 * The text files of a folder of the repository at the commit `ref` names (relative to the folder), or
 * of the one file `path` with `file` (keyed by its path), under the same refusals as a stack's files:
 * links and submodules refused, hidden files left out, binary files skipped, the limits held.
 */
export async function fetchFiles(req: FilesRequest): Promise<Omit<Fetched, "compose">> {
  const path = req.path === "." || req.path === "" ? "." : composePath(req.path.replace(/\/$/, ""))
  const limits = req.limits ?? DEFAULT_LIMITS
  const folder = req.file ? posix.dirname(path) : path
  return fetched(
    req,
    folder,
    async ({ commit, present, skipped, read }) => {
      if (req.file && !present.length)
        throw invalid(`${path} is not a file in the repository at ${commit.slice(0, 12)}`, "git_file_missing", {
          fields: { commit },
        })
      if (present.length > limits.files)
        throw refused(`${path} holds ${present.length} files, over the limit of ${limits.files}`, "too_large", commit)
      const total = present.reduce((n, e) => n + e.size, 0)
      if (total > limits.totalBytes)
        throw refused(`${path} holds ${total} bytes, over the limit of ${limits.totalBytes}`, "too_large", commit)
      const blobs = await read(present)
      const text = new TextDecoder("utf-8", { fatal: true })
      const files: Record<string, string> = {}
      present.forEach((e, i) => {
        try {
          files[req.file ? e.path : e.rel] = text.decode(blobs[i])
        } catch {
          skipped.push(`${e.path} (binary)`)
        }
      })
      return { commit, files, skipped }
    },
    req.file ? path : undefined,
  )
}

/** The commit `ref` names at `url` now (`ls-remote`), or null when the remote has no such ref. */
export async function remoteHead(
  req: Pick<FetchRequest, "url" | "ref" | "token" | "ssh" | "timeout" | "signal">,
): Promise<string | null> {
  if (/^[0-9a-f]{40}$/.test(req.ref)) return req.ref
  const out = new TextDecoder().decode(
    await mustGit(["ls-remote", "--", req.url, req.ref], {
      cwd: tmpdir(),
      protocol: protocolOf(req.url),
      token: req.token,
      ssh: req.ssh,
      timeout: req.timeout ?? 30,
      signal: req.signal,
    }),
  )
  const lines = out
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => l.split("\t") as [string, string])
  const exact =
    lines.find(([, r]) => r === req.ref || r === `refs/heads/${req.ref}` || r === `refs/tags/${req.ref}^{}`) ??
    lines.find(([, r]) => r === `refs/tags/${req.ref}`)
  return exact?.[0] ?? null
}
