// This server's identity: made once, kept in the data directory, stable across restarts.
import { join } from "node:path"
import { readJson, writeJson } from "./datadir.ts"

export async function serverId(dataDir: string): Promise<string> {
  const path = join(dataDir, "server.json")
  const stored = await readJson<{ server_id?: string }>(path, {})
  if (stored.server_id) return stored.server_id
  const id = crypto.randomUUID()
  writeJson(path, { server_id: id, created: new Date().toISOString() })
  return id
}
