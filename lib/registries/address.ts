// A registry's address as a person gives it: a host as image references name it (a dot, a port or
// `localhost` in it; Docker Hub is `docker.io`), and an optional path prefix below it, so that
// `ghcr.io/my-org` and `ghcr.io/other-org` hold different credentials. A scheme may be given
// (`https://`, or `http://` for a registry kept as insecure) and is not kept; credentials in the
// address are refused: they go in the user name and password, which are kept as a secret.
import { DOCKER_HUB, normalHost, parseRef } from "../engine/reference.ts"
import { maskUrl } from "../credentials/urls.ts"
import { invalid } from "../errors/errors.ts"

export interface Address {
  host: string
  /** The repository path below the host this registry's credentials are for ("" for all of it). */
  prefix: string
  /** The scheme the address was given with, if any. */
  scheme?: "http" | "https"
}

const COMPONENT = /^[a-z0-9]+(?:(?:\.|_|__|-+)[a-z0-9]+)*$/
const HOST =
  /^(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*|\[[0-9a-f:.]+\])(?::(\d{1,5}))?$/

export function parseAddress(input: string): Address {
  let rest = input.trim()
  const given = maskUrl(rest).slice(0, 100)
  const bad = (why: string) => invalid(`registry address "${given}": ${why}`, "invalid_address")
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(rest)
  if (scheme) {
    const s = scheme[1]!.toLowerCase()
    if (s !== "http" && s !== "https") throw bad("only https:// or http:// may come before the host")
    rest = rest.slice(scheme[0].length)
  }
  rest = rest.replace(/\/+$/, "")
  const slash = rest.indexOf("/")
  const hostPart = slash < 0 ? rest : rest.slice(0, slash)
  if (hostPart.includes("@"))
    throw invalid(
      "a registry address holds no credentials: give them as the user name and password, which are kept as a secret",
      "invalid_address",
    )
  const host = normalHost(hostPart)
  const port = HOST.exec(host)?.[1]
  if (!HOST.test(host) || (port !== undefined && (Number(port) < 1 || Number(port) > 65535)))
    throw bad("the host is not a host name, an IP address or [IPv6], with an optional :port")
  if (host !== DOCKER_HUB && !host.includes(".") && !host.includes(":") && host !== "localhost")
    throw bad(
      "image references name a registry only by a host with a dot or a port, or localhost (a bare name is a Docker Hub user)",
    )
  let path = slash < 0 ? "" : rest.slice(slash + 1).toLowerCase()
  // The docker CLI's config names Docker Hub https://index.docker.io/v1/.
  if (host === DOCKER_HUB && (path === "v1" || path === "v2")) path = ""
  if (path && !path.split("/").every((c) => COMPONENT.test(c)))
    throw bad("the path prefix is not a repository path (lower-case components separated by /)")
  return { host, prefix: path, ...(scheme ? { scheme: scheme[1]!.toLowerCase() as "http" | "https" } : {}) }
}

/** host/prefix as the address is shown. */
export const addressOf = ({ host, prefix }: Pick<Address, "host" | "prefix">): string =>
  prefix ? `${host}/${prefix}` : host

/** Whether a registry kept at `a` holds the credentials of the image `ref` (its host, and its repository under the prefix). */
export function covers(a: Pick<Address, "host" | "prefix">, ref: string): boolean {
  const r = parseRef(ref)
  return r.registry === a.host && (!a.prefix || r.repository === a.prefix || r.repository.startsWith(`${a.prefix}/`))
}
