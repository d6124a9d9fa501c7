// The cluster token as a bearer credential: the token this server minted (control plane) or joined
// with (member), kept in cluster.json under the data directory, compared in constant time.
import { createHash, timingSafeEqual } from "node:crypto"
import { join } from "node:path"
import { readJson } from "../data/datadir.ts"
import { unauthorized } from "../http/http-error.ts"

export const clusterFile = (dataDir: string) => join(dataDir, "cluster.json")

export async function clusterToken(dataDir: string): Promise<string | undefined> {
  return (await readJson<{ token?: string }>(clusterFile(dataDir), {})).token
}

/** Constant time in the content and, through the digests, in the length of the secret. */
export function sameSecret(given: string, expected: string): boolean {
  const digest = (s: string) => createHash("sha256").update(s).digest()
  return timingSafeEqual(digest(given), digest(expected))
}

/** Throws 401 unless the request carries `Authorization: Bearer <cluster token>`. */
export async function requireBearer(deps: { config: { dataDir: string } }, req: Request): Promise<void> {
  const expected = await clusterToken(deps.config.dataDir)
  const given = /^Bearer\s+(.+)$/i.exec(req.headers.get("authorization") ?? "")?.[1]?.trim()
  if (!expected || !given || !sameSecret(given, expected)) throw unauthorized()
}
