// The node registry of a control plane: nodes.json under the data directory, keyed by each node's
// own server_id. Names are unique: a second server asking for a taken name is refused (409), a
// server joining again under its own server_id keeps or changes its name. Writes are serialised.
import { join } from "node:path"
import { baseUrl } from "./membership.ts"
import { readJson, writeJson } from "../data/datadir.ts"
import { conflict, invalid, notFound } from "../errors/errors.ts"
import { outboundId, tunnels } from "./tunnel.ts"

export type NodeStatus = "online" | "offline" | "unauthorized" | "unknown"

export interface NodeEntry {
  name: string
  url: string
  status: NodeStatus
  error: string | null
  server_id: string
  registered_at: string
  checked_at: string | null
}

export interface ProbeResult {
  status: NodeStatus
  error: string | null
}

/** A node name is a path segment: letters, digits, dot, dash, underscore. */
export const NODE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/

/** The name of a node that joined without one. */
export const defaultName = (serverId: string) =>
  `node-${serverId
    .replace(/[^A-Za-z0-9]/g, "")
    .slice(0, 8)
    .toLowerCase()}`

/**
 * Where a joining node answers: its `advertise` URL, else the address its registration came from
 * with the port it listens on (8080, the default listen port, when it did not say).
 */
export function nodeUrl(advertise: string | undefined, peer: string | undefined, port = 8080): string {
  if (advertise) return baseUrl(advertise, "advertise")
  if (!peer) throw invalid("body.advertise: required when the connection's address is unknown", "bad_request")
  const host = peer.replace(/^::ffff:(?=\d+\.)/, "")
  return `http://${host.includes(":") ? `[${host}]` : host}:${port}`
}

type Table = Record<string, NodeEntry>

export class NodeRegistry {
  private queue: Promise<unknown> = Promise.resolve()
  private readonly file: string

  constructor(
    dataDir: string,
    private readonly now: () => number = Date.now,
  ) {
    this.file = join(dataDir, "nodes.json")
  }

  private read(): Promise<Table> {
    return readJson<Table>(this.file, {})
  }

  /** The table as it stands: an outbound node is online exactly while it holds its connection to this server. */
  private async current(): Promise<Table> {
    const table = await this.read()
    for (const node of Object.values(table)) {
      const id = outboundId(node.url)
      if (id) Object.assign(node, tunnels.status(id))
    }
    return table
  }

  /** Read, change and write the table, one change at a time. */
  private change<T>(fn: (table: Table) => T): Promise<T> {
    const run = this.queue.then(async () => {
      const table = await this.read()
      const result = fn(table)
      writeJson(this.file, table)
      return result
    })
    this.queue = run.catch(() => {})
    return run
  }

  async list(): Promise<NodeEntry[]> {
    return Object.values(await this.current()).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  }

  async get(name: string): Promise<NodeEntry> {
    const node = Object.values(await this.current()).find((n) => n.name === name)
    if (!node) throw notFound(`no node named "${name}" in the registry`, "node_not_found")
    return node
  }

  /** Adds a node, or renews the entry of a server that joins again; its status waits for a probe. */
  register(input: { server_id: string; name: string; url: string }): Promise<{ node: NodeEntry; created: boolean }> {
    return this.change((table) => {
      const holder = Object.values(table).find((n) => n.name === input.name)
      if (holder && holder.server_id !== input.server_id)
        throw conflict(`the node name "${input.name}" is taken by another server; join with another name`, "name_taken")
      const created = !table[input.server_id]
      const { name, url, server_id } = input
      const node: NodeEntry = {
        name,
        url,
        status: "unknown",
        error: "not probed yet",
        server_id,
        registered_at: new Date(this.now()).toISOString(),
        checked_at: null,
      }
      table[input.server_id] = node
      return { node, created }
    })
  }

  /** Records a probe result, unless the node left or joined again at another address meanwhile. */
  settle(node: NodeEntry, result: ProbeResult): Promise<NodeEntry> {
    return this.change((table) => {
      const current = table[node.server_id]
      const settled = { ...(current ?? node), ...result, checked_at: new Date(this.now()).toISOString() }
      if (current?.url === node.url) table[node.server_id] = settled
      return settled
    })
  }

  /** Drops a node; with `serverId`, only when the name still belongs to that server. */
  remove(name: string, serverId?: string): Promise<NodeEntry> {
    return this.change((table) => {
      const node = Object.values(table).find(
        (n) => n.name === name && (serverId === undefined || n.server_id === serverId),
      )
      if (!node)
        throw notFound(
          `no node named "${name}"${serverId ? ` with server_id ${serverId}` : ""} in the registry`,
          "node_not_found",
        )
      delete table[node.server_id]
      return node
    })
  }
}
