// Who is calling: a user signed in (local, OIDC or through a trusted proxy), or a script with one of
// their API tokens, with the role that decides what they may do.
import type { Role } from "./roles.ts"

/** Where an identity comes from; `cluster` is another server of the cluster: with the cluster token, or its gateway's proof (`via`). */
export type Source = "local" | "oidc" | "proxy" | "cluster"

export interface Identity {
  user: string
  role: Role
  source: Source
  /** The stacks this identity is limited to; absent for all. */
  stacks?: string[]
  /** The API token the request carried, when it came with one. */
  token?: string
  /** A token's MCP tools act only on a second call with `confirm: true` (unless created with mcp_confirm: false). */
  mcpConfirm?: boolean
  /** The control plane (its server_id) whose gateway forwarded the call, for a caller signed in there. */
  via?: string
}

/** A user name: letters, digits and `._@+-`, 1 to 64 of them, starting with a letter or digit (an e-mail address fits). */
export const USER_NAME = /^[A-Za-z0-9][A-Za-z0-9._@+-]{0,63}$/

export const isUserName = (value: unknown): value is string => typeof value === "string" && USER_NAME.test(value)

/** What of a list an identity may see: all of it, or what belongs to its stacks. */
export const visibleTo = <T>(identity: Identity | null, items: T[], stackOf: (item: T) => string | undefined): T[] =>
  identity?.stacks ? items.filter((item) => identity.stacks!.includes(stackOf(item) ?? "")) : items
