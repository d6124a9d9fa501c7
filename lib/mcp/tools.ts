// The MCP tools: each one is a route of the API, named and described for an agent. Path parameters
// come from the arguments of the same name; the other arguments become the query of a GET or DELETE
// and the JSON body of a POST or PUT.
import { z } from "zod"
import type { McpMode } from "../config.ts"
import { segment, type ApiCall } from "./api.ts"

export interface Tool {
  name: string
  description: string
  /** "METHOD /path/:param" of the route the tool calls. */
  route: string
  input: z.ZodRawShape
  /** Query values the tool always sends. */
  fixed?: Record<string, string>
  /** Changes something: offered only in full mode. */
  changes?: boolean
  /** Removes something that cannot be brought back. */
  destructive?: boolean
}

const containerId = z.string().min(1).describe("container id (full or a unique prefix) or name")
const tail = z.number().int().min(1).max(10_000).optional().describe("how many of the last lines to return (default: the service's SVC_LOGS_TAIL)")
export const tools: Tool[] = [
  // Reading
  { name: "system_summary", route: "GET /api/dashboard", input: {}, description: "The host at a glance: engine version, containers by state, image, volume and network counts, disk use, and the full container list." },
  { name: "list_containers", route: "GET /api/containers", input: { all: z.boolean().optional().describe("include stopped containers (default: running only)") }, description: "List containers with id, name, image, state, status, ports, labels and the stack/service they belong to." },
  { name: "inspect_container", route: "GET /api/containers/:id", input: { id: containerId }, description: "One container in detail: state, exit code, start time, command, mounts, networks, ports, labels. Its environment is never shown." },
  { name: "container_logs", route: "GET /api/containers/:id/logs", fixed: { follow: "false" }, input: { id: containerId, tail }, description: "The last lines of a container's log (no following), each {service, container, stream, ts, line}." },
  { name: "event_history", route: "GET /api/events/history", input: {}, description: "The last 100 events, oldest first: the engine's (container start/stop/die, image pull, …) and the service's own (compose output, failures)." },
  { name: "list_images", route: "GET /api/images", input: {}, description: "Local images with tags, size, creation time and their vulnerability scan summary." },
  { name: "list_volumes", route: "GET /api/volumes", input: {}, description: "Volumes with driver, mount point, labels and the stack they belong to." },
  { name: "list_networks", route: "GET /api/networks", input: {}, description: "Networks with driver, scope and labels." },

  // Changing (full mode)
  {
    name: "container_action",
    route: "POST /api/containers/:id/action",
    changes: true,
    input: { id: containerId, action: z.enum(["start", "stop", "restart", "pause", "unpause"]).describe("what to do with the container") },
    description: "Start, stop, restart, pause or unpause one container; returns its state afterwards.",
  },
  {
    name: "remove_container",
    route: "DELETE /api/containers/:id",
    changes: true,
    destructive: true,
    input: { id: containerId, force: z.boolean().optional().describe("also remove it when it is running"), volumes: z.boolean().optional().describe("also remove its anonymous volumes") },
    description: "Delete one container. A container of a stack comes back on the stack's next deploy.",
  },
]

export const toolsFor = (mode: McpMode): Tool[] => tools.filter((t) => mode === "full" || !t.changes)

/** The route's method and path pattern. */
export function routeOf(tool: Tool): { method: ApiCall["method"]; path: string } {
  const [method, path] = tool.route.split(" ") as [ApiCall["method"], string]
  return { method, path }
}

/** The API call a tool makes with these (already validated) arguments. */
export function apiCall(tool: Tool, args: Record<string, unknown>): ApiCall {
  const { method, path: pattern } = routeOf(tool)
  const rest = { ...args }
  const path = pattern.replace(/:(\w+)/g, (_, key: string) => {
    const value = String(rest[key])
    delete rest[key]
    return segment(value)
  })
  const defined = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined))
  if (method === "GET" || method === "DELETE") return { method, path, query: { ...(defined as ApiCall["query"]), ...tool.fixed } }
  return { method, path, query: tool.fixed, body: defined }
}
