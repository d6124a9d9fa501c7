// The response schemas of the cluster: nodes of the registry and this server's membership.
import * as v from "valibot"
import { NODE_NAME } from "./nodes.ts"

export const nodeName = v.pipe(
  v.string(),
  v.regex(NODE_NAME, "a node name is letters, digits, dot, dash or underscore (at most 63)"),
  v.description("node name in the registry"),
)

const nodeStatus = v.picklist(["online", "offline", "unauthorized", "unknown"])

export const nodeSchema = v.object({
  name: v.string(),
  url: v.string(),
  status: nodeStatus,
  error: v.nullable(v.string()),
  server_id: v.string(),
  registered_at: v.string(),
  checked_at: v.nullable(v.string()),
})
export type ClusterNode = v.InferOutput<typeof nodeSchema>

/** A node as a joining server is told about it. */
export const probedNodeSchema = v.object({
  name: v.string(),
  url: v.string(),
  status: nodeStatus,
  error: v.nullable(v.string()),
})

/** What a control plane answers a registration: the node, and the control plane's own server_id (which its gateway's proofs name). */
export const registeredNodeSchema = v.object({ ...probedNodeSchema.entries, control_plane_id: v.string() })

export const tokenSchema = v.object({ token: v.string() })
