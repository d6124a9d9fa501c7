// An edit made here written back to a git stack's branch: the branch's head fetched (shallow) into a
// bare repository of its own, a commit built from it with the changed files only (plumbing: an index
// file, `hash-object`, `update-index`, `write-tree`, `commit-tree`; no work tree, so nothing of the
// repository is ever written as files) and pushed. The branch must still be at the commit the stack
// was deployed from: when someone pushed meanwhile (before the fetch, or between it and the push,
// which git refuses as non-fast-forward), it is 409 `git_push_refused` and nothing was changed.
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, posix } from "node:path"
import { serverId } from "../data/identity.ts"
import { conflict, upstream } from "../errors/errors.ts"
import { lastLine, mustGit, protocolOf, runGit, type GitRun } from "./run.ts"
import { credentials, type GitSource } from "./source.ts"
import { DEFAULT_LIMITS } from "./tree.ts"

export interface WriteBack {
  /** The new compose file, when it changed. */
  compose?: string
  /** Stack files (relative to the compose file's folder): new content, or null for a removal. */
  files?: Record<string, string | null>
  /** What the commit message says the change was (the route and who asked). */
  message: string
}

const refused = (source: GitSource, why: string) =>
  conflict(
    `the edit was not pushed to ${source.url} (${source.ref}): ${why}; nothing was changed here: sync the stack and edit again`,
    "git_push_refused",
  )

/** Commits `change` on the source's branch and pushes it; the new commit. */
export async function pushChange(
  source: GitSource,
  change: WriteBack,
  opts: { dataDir: string; signal?: AbortSignal },
): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "hm-git-push-"))
  const id = await serverId(opts.dataDir)
  const person = { NAME: "Harbormaster", EMAIL: `harbormaster@${id}` }
  const run: GitRun = {
    cwd: dir,
    protocol: protocolOf(source.url),
    ...credentials(source),
    signal: opts.signal,
    env: {
      GIT_INDEX_FILE: join(dir, "push-index"),
      ...Object.fromEntries(
        ["AUTHOR", "COMMITTER"].flatMap((who) => Object.entries(person).map(([k, v]) => [`GIT_${who}_${k}`, v])),
      ),
    },
  }
  const text = async (args: string[], stdin?: string) =>
    new TextDecoder()
      .decode(
        await mustGit(args, { ...run, ...(stdin === undefined ? {} : { stdin: new TextEncoder().encode(stdin) }) }),
      )
      .trim()
  try {
    await text(["init", "-q", "--bare", "."])
    // A commit's files are all fetched (git cannot push a commit built on a partial fetch): under the fetch cap.
    const fetched = await runGit(
      [
        "fetch",
        "-q",
        "--depth=1",
        "--no-tags",
        "--no-recurse-submodules",
        "--",
        source.url,
        `refs/heads/${source.ref}`,
      ],
      { ...run, fileBytes: DEFAULT_LIMITS.fetchBytes },
    )
    if (fetched.code !== 0) throw upstream(`git fetch failed: ${lastLine(fetched.stderr)}`, "git_failed")
    const parent = await text(["rev-parse", "--verify", "FETCH_HEAD^{commit}"])
    if (parent !== source.deployed_commit)
      throw refused(
        source,
        `the branch is at ${parent.slice(0, 12)}, not at the deployed ${source.deployed_commit?.slice(0, 12) ?? "commit"}`,
      )
    await text(["read-tree", parent])
    const folder = posix.dirname(source.path)
    const paths: [string, string | null][] = [
      ...(change.compose === undefined ? [] : [[source.path, change.compose] as [string, string]]),
      ...Object.entries(change.files ?? {}).map(
        ([p, c]) => [folder === "." ? p : `${folder}/${p}`, c] as [string, string | null],
      ),
    ]
    for (const [path, content] of paths) {
      if (content === null) await text(["update-index", "--force-remove", "--", path])
      else
        await text([
          "update-index",
          "--add",
          "--cacheinfo",
          `100644,${await text(["hash-object", "-w", "--stdin"], content)},${path}`,
        ])
    }
    const tree = await text(["write-tree"])
    const commit = await text(["commit-tree", tree, "-p", parent, "-F", "-"], `${change.message}\n`)
    const pushed = await runGit(["push", "-q", "--", source.url, `${commit}:refs/heads/${source.ref}`], run)
    if (pushed.code !== 0) {
      if (/rejected|non-fast-forward|fetch first/.test(pushed.stderr))
        throw refused(source, "someone pushed to the branch meanwhile")
      throw upstream(`git push failed: ${lastLine(pushed.stderr)}`, "git_failed")
    }
    return commit
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
