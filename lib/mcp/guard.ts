// Who may reach /mcp: its own Host and Origin allowlists, checked before the MCP transport sees a
// request (the API's CORS policy does not apply here). A request without Origin is not a browser's.
import type { McpConfig } from "./config.ts"
import { hostname } from "../http/guard.ts"
import { refused, type DomainError } from "../errors/errors.ts"

export type McpGuard = Pick<McpConfig, "allowedHosts" | "allowedOrigins">

const hasPort = (host: string) => /:\d+$/.test(host)

/** An entry with a port must match the Host header exactly; one without matches the name on any port. */
export function mcpHostAllowed(host: string | null, allowed: string[]): boolean {
  if (!host) return false
  if (allowed.includes("*")) return true
  const h = host.trim().toLowerCase()
  return allowed.some((entry) => {
    const a = entry.toLowerCase()
    return hasPort(a) ? a === h : a === hostname(h)
  })
}

export function mcpOriginAllowed(origin: string | null, allowed: string[]): boolean {
  return origin === null || allowed.includes("*") || allowed.includes(origin)
}

/** The refusal of the request, or null when it may pass. */
export function mcpRefusal(req: Request, guard: McpGuard): DomainError | null {
  const host = req.headers.get("host")
  if (!mcpHostAllowed(host, guard.allowedHosts))
    return refused(
      `host "${host ?? ""}" is not allowed to use /mcp; add it to SVC_MCP_ALLOWED_HOSTS`,
      "host_not_allowed",
    )
  const origin = req.headers.get("origin")
  if (!mcpOriginAllowed(origin, guard.allowedOrigins))
    return refused(
      `origin "${origin}" is not allowed to use /mcp; add it to SVC_MCP_ALLOWED_ORIGINS`,
      "origin_not_allowed",
    )
  return null
}

/** CORS headers for an allowed browser origin (none for a caller without Origin). */
export function mcpCorsHeaders(origin: string | null): Record<string, string> {
  if (!origin) return {}
  return {
    "access-control-allow-origin": origin,
    "access-control-allow-methods": "GET, POST, DELETE, OPTIONS",
    "access-control-allow-headers":
      "content-type, accept, authorization, mcp-session-id, mcp-protocol-version, last-event-id",
    "access-control-expose-headers": "mcp-session-id, mcp-protocol-version",
    "access-control-max-age": "600",
    vary: "origin",
  }
}
