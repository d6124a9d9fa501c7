// Who calls /mcp while sign-in is on, as the endpoint sees them: the tools their role allows, whether
// a changing tool answers with its plan first, and the app as they would call it (each request
// marked with the tool that makes it, for the audit log). Without sign-in there is no caller and
// /mcp is as its mode (SVC_MCP) says.
import type { AppFetch } from "./api.ts"

export interface McpCaller {
  /** The API token (or user) the caller is: an MCP session answers to the caller that opened it only. */
  id: string
  /** Whether the caller's role may call a route that needs `role` (the route's `export const role`). */
  allows(role: unknown): boolean
  /** A tool that changes something answers with its plan, and acts on a call with `confirm: true`. */
  confirm: boolean
  /** The app as this caller, for one tool's requests. */
  fetchFor(tool: string): AppFetch
  /** Records a tool call that made no request (a plan answered). */
  planned(tool: string): void
}
