// A stack's git source, kept in its records (`<data>/records/<name>/git.json`, sealed, so it goes when
// the stack goes and never reaches its folder, its versions or its export): the repository, the ref,
// the compose file's path, push on or off, the credentials (a token, or an ssh private key with the
// server's known hosts) and the webhook's secret, and what the last sync did. Its public view carries
// no secret: whether a token or a key is kept, and the known hosts (public keys).
import { randomBytes } from "node:crypto"
import { existsSync } from "node:fs"
import { join } from "node:path"
import * as v from "valibot"
import { readJson, removeDurably, writeSealedJson } from "../data/datadir.ts"
import { invalid } from "../errors/errors.ts"
import { keptFor, maskUrl } from "../credentials/urls.ts"
import { protocolOf, type SshAuth } from "./run.ts"
import { composePath } from "./tree.ts"

const FILE = "git.json"

export interface LastSync {
  time: string
  /** The commit the sync found (null when it found none). */
  commit: string | null
  /** What came of it: applied, rolled_back, unchanged, stopped (recorded, left stopped), refused, failed. */
  verdict: string
  error: string | null
}

export interface GitSource {
  url: string
  ref: string
  path: string
  push: boolean
  /** When to sync by itself: an interval (`5m`) or a cron expression, read as update policies' are; null: never. */
  schedule: string | null
  /** A token sent as HTTP basic authentication; a secret. */
  token?: string
  /** An ssh private key (ssh URLs); a secret. */
  ssh_key?: string
  /** The ssh server's keys (known_hosts lines): given, or the first one seen, kept (lib/git/run.ts). */
  known_hosts?: string
  /** The secret webhooks are signed with. */
  webhook_secret: string
  /** The commit the stack's current deployment came from. */
  deployed_commit: string | null
  last_sync: LastSync | null
}

export const gitInputSchema = v.object({
  url: v.pipe(v.string(), v.minLength(1), v.maxLength(2048)),
  ref: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^[A-Za-z0-9._/-]{1,255}$/, "a branch, tag or commit"),
      v.check((r) => !r.startsWith("-") && !r.includes(".."), "a branch, tag or commit"),
    ),
    "main",
  ),
  path: v.optional(v.pipe(v.string(), v.maxLength(1024)), "compose.yaml"),
  push: v.optional(v.boolean(), false),
  schedule: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(200))), null),
  /** null or absent keeps the stored token; "" removes it. */
  token: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(4096)))),
  /** An ssh private key for an ssh URL (OpenSSH or PEM text); null or absent keeps the stored one, "" removes it. */
  ssh_key: v.optional(
    v.nullable(
      v.pipe(
        v.string(),
        v.maxLength(16384),
        v.check(
          (k) =>
            k === "" ||
            /^-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----\r?\n[\s\S]+-----END [A-Z0-9 ]*PRIVATE KEY-----\s*$/.test(k),
          "an ssh private key (-----BEGIN ... PRIVATE KEY----- ... -----END ... PRIVATE KEY-----)",
        ),
      ),
    ),
  ),
  /** The ssh server's known_hosts lines; absent keeps the stored ones, "" forgets them (the next key seen is accepted and kept). */
  known_hosts: v.optional(
    v.pipe(
      v.string(),
      v.maxLength(65536),
      v.check((k) => !/[\0]/.test(k), "known_hosts lines"),
    ),
  ),
  /** Absent keeps the stored secret (a new source gets a random one). */
  webhook_secret: v.optional(v.pipe(v.string(), v.minLength(16), v.maxLength(256))),
})
export type GitInput = v.InferOutput<typeof gitInputSchema>

export const lastSyncSchema = v.object({
  time: v.string(),
  commit: v.nullable(v.string()),
  verdict: v.string(),
  error: v.nullable(v.string()),
})

export const publicSourceSchema = v.object({
  url: v.string(),
  ref: v.string(),
  path: v.string(),
  push: v.boolean(),
  schedule: v.nullable(v.string()),
  has_token: v.boolean(),
  has_ssh_key: v.boolean(),
  known_hosts: v.nullable(v.string()),
  deployed_commit: v.nullable(v.string()),
  last_sync: v.nullable(lastSyncSchema),
})

/** The source without its secrets (its URL as maskUrl shows it). */
export const publicSource = (s: GitSource): v.InferOutput<typeof publicSourceSchema> => ({
  url: maskUrl(s.url),
  ref: s.ref,
  path: s.path,
  push: s.push,
  schedule: s.schedule ?? null,
  has_token: !!s.token,
  has_ssh_key: !!s.ssh_key,
  known_hosts: s.known_hosts || null,
  deployed_commit: s.deployed_commit,
  last_sync: s.last_sync,
})

/**
 * The source an input makes, keeping what `before` had of the webhook secret, and of the token and the
 * ssh key only while the repository's origin stays the same (a credential never follows its URL to
 * another server: moved, it must be given again); 400 for a URL with a credential in it.
 */
export function sourceFrom(input: GitInput, before?: GitSource): GitSource {
  protocolOf(input.url)
  if (/^[a-z][a-z0-9+.-]*:\/\/[^/]*@/i.test(input.url) && !input.url.startsWith("ssh://"))
    throw invalid("the repository URL must not carry a user or password: give the token as `token`", "invalid_git_url")
  composePath(input.path)
  const was = (credential: string | undefined) => before && { url: before.url, credential }
  const token = keptFor(was(before?.token), { url: input.url, given: input.token })
  const sshKey = keptFor(was(before?.ssh_key), { url: input.url, given: input.ssh_key })
  const knownHosts = input.known_hosts ?? (before?.url === input.url ? before.known_hosts : undefined)
  return {
    url: input.url,
    ref: input.ref,
    path: input.path,
    push: input.push,
    schedule: input.schedule?.trim() || null,
    ...(token ? { token } : {}),
    ...(sshKey ? { ssh_key: sshKey } : {}),
    ...(knownHosts?.trim() ? { known_hosts: knownHosts } : {}),
    webhook_secret: input.webhook_secret ?? before?.webhook_secret ?? randomBytes(24).toString("hex"),
    deployed_commit: before?.url === input.url && before.path === input.path ? before.deployed_commit : null,
    last_sync: before?.last_sync ?? null,
  }
}

/** What git needs to reach the source's repository; `learned` keeps a host key ssh accepted for the first time. */
export const credentials = (s: GitSource, learned?: SshAuth["learned"]): { token?: string; ssh: SshAuth } => ({
  token: s.token,
  ssh: { key: s.ssh_key, knownHosts: s.known_hosts ?? "", learned },
})

export const hasSource = (records: string) => existsSync(join(records, FILE))

export const readSource = (records: string): Promise<GitSource | undefined> =>
  readJson<GitSource | undefined>(join(records, FILE), undefined)

export const writeSource = (records: string, source: GitSource) => writeSealedJson(join(records, FILE), source)

export const removeSource = (records: string) => removeDurably(join(records, FILE))
