// The cluster token as a bearer credential: the token this server minted (control plane) or joined
// with (member), kept in cluster.json under the data directory, compared in constant time.
import { statSync } from "node:fs"
import { join } from "node:path"
import { readJson } from "../data/datadir.ts"
import { unauthenticated } from "../errors/errors.ts"

export const clusterFile = (dataDir: string) => join(dataDir, "cluster.json")

/** The token last read, and which version of cluster.json it came from (a write replaces the file: a new inode). */
const seen = new Map<string, { version: string; token: string | undefined }>()

/** Read again only when cluster.json changed: every call from another server (each stream of an outbound node) checks it. */
export async function clusterToken(dataDir: string): Promise<string | undefined> {
  const path = clusterFile(dataDir)
  const st = statSync(path, { throwIfNoEntry: false })
  if (!st) return undefined
  const version = `${st.ino}:${st.mtimeMs}:${st.size}`
  const known = seen.get(path)
  const unchanged = known?.version === version
  if (unchanged) return known.token
  const token = (await readJson<{ token?: string }>(path, {})).token
  seen.set(path, { version, token })
  return token
}

/** Constant time in the content and, through the digests, in the length of the secret. */
export function sameSecret(given: string, expected: string): boolean {
  const digest = (s: string) => new Bun.CryptoHasher("sha256").update(s).digest()
  return crypto.timingSafeEqual(digest(given), digest(expected))
}

/** Routes that want `Authorization: Bearer <cluster token>`, as the OpenAPI document declares them. */
export const clusterSecurity: Record<string, string[]>[] = [{ clusterToken: [] }]

/** Throws 401 unless the request carries `Authorization: Bearer <cluster token>`. */
export async function requireBearer(deps: { config: { dataDir: string } }, req: Request): Promise<void> {
  const expected = await clusterToken(deps.config.dataDir)
  const given = /^Bearer\s+(.+)$/i.exec(req.headers.get("authorization") ?? "")?.[1]?.trim()
  if (!expected || !given || !sameSecret(given, expected))
    throw unauthenticated("a valid Authorization: Bearer <cluster token> is required")
}
