// `proxy` mode: a reverse proxy that signed the caller in says who they are in Remote-User,
// Remote-Groups and Remote-Email. Those headers are believed only from a peer address in
// SVC_AUTH_TRUSTED_PROXIES, and the groups give a role only through SVC_AUTH_ROLE_MAP.
import { HttpError } from "../http/http-error.ts"
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
  if (!isUserName(user)) throw new HttpError(401, "unauthorized", "the proxy's Remote-User is not a valid user name")
  const groups = (request.headers.get("remote-groups") ?? "")
    .split(",")
    .map((g) => g.trim())
    .filter(Boolean)
  const role = roleFor(groups, map)
  if (!role) throw new HttpError(403, "no_role", `user "${user}" is in no group SVC_AUTH_ROLE_MAP gives a role`)
  return { user, role, source: "proxy" }
}
