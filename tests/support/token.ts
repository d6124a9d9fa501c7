// Makes a test data directory a control plane with a known cluster token.
import { clusterFile } from "#lib/cluster/bearer.ts"
import { writeJson } from "#lib/data/datadir.ts"

export const TOKEN = "test-cluster-token"
export const bearer = { authorization: `Bearer ${TOKEN}` }

export function withToken(dataDir: string): void {
  writeJson(clusterFile(dataDir), { role: "control-plane", token: TOKEN, since: new Date(0).toISOString() }, 0o600)
}
