// What the front door is configured with (SVC_AUTH and the SVC_AUTH_* settings), as
// lib/service/config.ts reads it from the environment.
import type { OidcConfig } from "./oidc.ts"
import type { Role } from "./roles.ts"

export const AUTH_MODES = ["local", "oidc", "proxy"] as const
export type AuthMode = (typeof AUTH_MODES)[number]

/** SVC_AUTH_MFA: who must sign in with a second factor (local users; single sign-on's comes from its provider). */
export const MFA_POLICIES = ["off", "admins", "all"] as const
export type MfaPolicy = (typeof MFA_POLICIES)[number]

/** A group (or `*`, any caller) and the role it gives; the first entry that matches wins. */
export interface RoleRule {
  group: string
  role: Role
}

export interface AuthConfig {
  /** The modes SVC_AUTH names; empty when sign-in is off (the default). */
  modes: Set<AuthMode>
  /** SVC_AUTH_TRUSTED_PROXIES: CIDRs of the proxies whose Remote-User, Remote-Groups and Remote-Email headers are believed. */
  trustedProxies: string[]
  /** SVC_AUTH_ROLE_MAP: groups to roles, `admins=admin,ops=operator,*=viewer`; a caller no rule matches gets no access. */
  roleMap: RoleRule[]
  /** SVC_AUTH_COOKIE_SECURE: the session cookie is Secure on every answer, not only on requests that came over https. */
  cookieSecure: boolean
  /** SVC_AUTH_SESSION_IDLE and SVC_AUTH_SESSION_MAX: seconds a session lives unused, and at most. */
  session: { idle: number; max: number }
  /** SVC_AUTH_AUDIT_MAX_BYTES and SVC_AUTH_AUDIT_FILES: the size of one audit file, and how many are kept. */
  audit: { maxBytes: number; files: number }
  /** SVC_AUTH_MFA: `admins` or `all` local users must have a second factor, and are sent to enrol one after their password. */
  mfa: MfaPolicy
  /** SVC_PUBLIC_URL: the origin people open the service at (passkeys' relying party); undefined: the address a request came to. */
  publicUrl: string | undefined
  /** Single sign-on's provider and client (SVC_AUTH_OIDC_*, lib/auth/oidc.ts); null without `oidc` in SVC_AUTH. */
  oidc: OidcConfig | null
}

export const authDefaults = {
  sessionIdle: 12 * 3600,
  sessionMax: 7 * 24 * 3600,
  auditMaxBytes: 10 * 1024 * 1024,
  auditFiles: 5,
}

/** The role the map gives a caller in these groups, or null (no access). */
export function roleFor(groups: readonly string[], map: readonly RoleRule[]): Role | null {
  return map.find((rule) => rule.group === "*" || groups.includes(rule.group))?.role ?? null
}
