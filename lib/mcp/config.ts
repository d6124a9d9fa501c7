// What /mcp is configured with (SVC_MCP, SVC_MCP_ALLOWED_HOSTS, SVC_MCP_ALLOWED_ORIGINS,
// SVC_MCP_SESSION_TTL), as lib/service/config.ts reads it from the environment.
export const MCP_MODES = ["read-only", "full"] as const
export type McpMode = (typeof MCP_MODES)[number]
export interface McpConfig {
  mode: McpMode
  /** Host header values (host:port) /mcp answers to; "*" allows any. */
  allowedHosts: string[]
  /** Browser origins allowed to call /mcp; none by default. */
  allowedOrigins: string[]
  /** Idle seconds after which an MCP session is dropped. */
  sessionTtl: number
}
