// The one table of what each role may do. A route says in its handler file which role it needs
// (`export const role`); a caller's role reaches it when it ranks at least as high. `public` routes
// (health, sign-in) need no one.
export const ROLES = ["viewer", "operator", "admin"] as const
export type Role = (typeof ROLES)[number]
/** What a route needs: a role, or nobody signed in (`public`). */
export type RouteRole = Role | "public"

/** Each role and what it may do: every role may also do what the ones before it may. */
export const MAY: Record<Role, string> = {
  viewer:
    "read: lists, inspections, logs, stats, events, environments with secret values hidden; no shell, no secret values, no environment export, no join tokens",
  operator:
    "act: stack and container actions, deploys, updates, rollbacks, scale, drain, file and environment writes, scans, shells",
  admin:
    "everything: prune, the cluster and its tokens, swarm membership, node removal, users, everyone's API tokens, the audit log",
}

export const isRole = (value: unknown): value is Role => (ROLES as readonly unknown[]).includes(value)

export const rank = (role: Role): number => ROLES.indexOf(role)

/** Whether a caller of role `have` may call a route that needs `need`. */
export const permits = (have: Role, need: RouteRole): boolean => need === "public" || rank(have) >= rank(need)

/** The lower of two roles. */
export const lesser = (a: Role, b: Role): Role => (rank(a) <= rank(b) ? a : b)
