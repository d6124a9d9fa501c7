// What a caller may do, as one value: a role and the stacks it is limited to (none: every stack). A
// token's grant is met with its owner's at every use, so it is never more than the owner has now;
// whether a route may be called, and whether a stack may be created, is asked of a grant here only.
import type { Role, RouteRole } from "./roles.ts"
import { lesser, permits, rank } from "./roles.ts"

export interface Grant {
  role: Role
  /** The stacks it is limited to; absent for all. */
  stacks?: readonly string[]
}

/** The stacks both allow (absent: all). */
export function sharedStacks(a?: readonly string[], b?: readonly string[]): string[] | undefined {
  if (!a) return b && [...b]
  if (!b) return [...a]
  return a.filter((s) => b.includes(s))
}

/** What both grants allow: the lower role, the stacks both name. */
export function narrower(a: Grant, b: Grant): Grant {
  const stacks = sharedStacks(a.stacks, b.stacks)
  return { role: lesser(a.role, b.role), ...(stacks && { stacks }) }
}

/** Whether `inner` allows nothing that `outer` does not. */
export const within = (inner: Grant, outer: Grant): boolean =>
  rank(inner.role) <= rank(outer.role) &&
  (!outer.stacks || (!!inner.stacks && inner.stacks.every((s) => outer.stacks!.includes(s))))

/**
 * Whether a grant may call a route that needs `need`, naming `stack` (undefined: no stack). Limited to
 * stacks, it acts only on those, and elsewhere only reads.
 */
export function reaches(grant: Grant, need: RouteRole, stack?: string): boolean {
  if (!permits(grant.role, need)) return false
  if (!grant.stacks || need === "public") return true
  return stack === undefined ? need === "viewer" : grant.stacks.includes(stack)
}

/**
 * Whether a grant may create a stack, by any route (a deploy, a copy, an import, an adoption, a
 * restore, a git deploy): only one limited to no stacks, as POST /api/stacks asks. Null (sign-in
 * off) may.
 */
export const createsStacks = (grant: Grant | null): boolean => !grant?.stacks
