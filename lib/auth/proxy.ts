// The proxies in SVC_AUTH_TRUSTED_PROXIES: from their addresses the caller's own address is read from
// X-Forwarded-For (for the sign-in limits and the audit log, in every mode), and in `proxy` mode who
// the caller is from Remote-User, Remote-Groups and Remote-Email, the groups giving a role only
// through SVC_AUTH_ROLE_MAP.
import { refused, unauthenticated } from "../errors/errors.ts"
import { roleFor, type RoleRule } from "./config.ts"
import { isUserName, type Identity } from "./identity.ts"

/** Whether a peer address is one of the trusted proxies'. */
export type Trust = (peer: string | undefined) => boolean

/**
 * The peers `cidrs` names (address/prefix, or a bare address); throws on one that is not. node:net
 * is loaded only for a list with an entry: a service with no proxy to trust never loads it.
 */
export function trustList(cidrs: readonly string[]): Trust {
  if (!cidrs.length) return () => false
  const { BlockList, isIP } = require("node:net") as typeof import("node:net")
  const list = new BlockList()
  for (const cidr of cidrs) {
    const [address = "", bits] = cidr.split("/")
    const family = isIP(address)
    const prefix = bits === undefined ? (family === 6 ? 128 : 32) : Number(bits)
    if (!family || !Number.isInteger(prefix) || prefix < 0 || prefix > (family === 6 ? 128 : 32))
      throw new Error(`"${cidr}" is not an address or a CIDR such as 10.0.0.0/8`)
    list.addSubnet(address, prefix, family === 6 ? "ipv6" : "ipv4")
  }
  return (peer) => {
    const family = peer ? isIP(peer) : 0
    return !!family && list.check(peer!, family === 6 ? "ipv6" : "ipv4")
  }
}

/**
 * The caller's address: the peer's, or behind trusted proxies the last address of X-Forwarded-For
 * that is not one of theirs (each proxy appends the address it was called from; what a client wrote
 * there itself comes before, and is never taken while a proxy's entry follows it).
 */
export function clientAddress(request: Request, peer: string | undefined, trust: Trust): string | undefined {
  if (!trust(peer)) return peer
  const hops = (request.headers.get("x-forwarded-for") ?? "")
    .split(",")
    .map((h) => h.trim())
    .filter(Boolean)
  for (let i = hops.length - 1; i >= 0; i--) if (!trust(hops[i])) return hops[i]
  return hops[0] ?? peer
}

/**
 * The identity the proxy's headers give, or null when the request has none or its peer is not
 * trusted. Headers from a trusted proxy that name no valid user, or groups no rule maps, are refused.
 */
export function proxyIdentity(
  request: Request,
  peer: string | undefined,
  trust: Trust,
  map: readonly RoleRule[],
): Identity | null {
  const user = request.headers.get("remote-user")
  if (user === null || !trust(peer)) return null
  if (!isUserName(user)) throw unauthenticated("the proxy's Remote-User is not a valid user name")
  const groups = (request.headers.get("remote-groups") ?? "")
    .split(",")
    .map((g) => g.trim())
    .filter(Boolean)
  const role = roleFor(groups, map)
  if (!role) throw refused(`user "${user}" is in no group SVC_AUTH_ROLE_MAP gives a role`, "no_role")
  return { user, role, source: "proxy" }
}
