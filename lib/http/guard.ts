// Browser safety for an API without a login: refuse DNS-rebinding Host names, foreign Origins and
// bodies a page could send without a preflight. A curl call without Origin and without a body passes.
import { HttpError } from "./http-error.ts"

const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "::1", "[::1]"])
const UNSAFE = new Set(["POST", "PUT", "PATCH", "DELETE"])

export interface GuardOptions {
  /** Extra host names this server answers to (SVC_ALLOWED_HOSTS); "*" allows any. */
  allowedHosts: string[]
  /** Browser origins allowed besides the server's own (SVC_CORS_ORIGINS); "*" allows any. */
  corsOrigins: string[]
  listenHost: string
}

export function hostname(hostHeader: string): string {
  const h = hostHeader.trim().toLowerCase()
  if (h.startsWith("[")) return h.slice(0, h.indexOf("]") + 1)
  return h.replace(/:\d+$/, "")
}

const isIpLiteral = (h: string) => /^\d{1,3}(\.\d{1,3}){3}$/.test(h) || h.startsWith("[")

/** A DNS-rebinding attack needs a name: IP literals and loopback names are safe; other names must be listed. */
export function hostAllowed(hostHeader: string | null, o: GuardOptions): boolean {
  if (!hostHeader) return true
  const h = hostname(hostHeader)
  if (LOOPBACK_NAMES.has(h) || h.endsWith(".localhost") || isIpLiteral(h)) return true
  return (
    o.allowedHosts.includes("*") ||
    o.allowedHosts.map((a) => a.toLowerCase()).includes(h) ||
    h === o.listenHost.toLowerCase()
  )
}

export function originAllowed(origin: string | null, hostHeader: string | null, o: GuardOptions): boolean {
  if (origin === null) return true
  if (o.corsOrigins.includes("*") || o.corsOrigins.includes(origin)) return true
  try {
    return new URL(origin).host === (hostHeader ?? "").toLowerCase()
  } catch {
    return false
  }
}

export function hasBody(req: Request): boolean {
  const length = req.headers.get("content-length")
  if (length !== null) return length !== "0"
  return req.headers.has("transfer-encoding") || req.body !== null
}

/** Throws the HttpError that refuses the request, if any. `accepts` lists the route's body types. */
export function checkRequest(req: Request, o: GuardOptions): void {
  const host = req.headers.get("host")
  if (!hostAllowed(host, o))
    throw new HttpError(
      403,
      "host_not_allowed",
      `host "${host}" is not one this server answers to; add it to SVC_ALLOWED_HOSTS`,
    )
  if (!originAllowed(req.headers.get("origin"), host, o))
    throw new HttpError(
      403,
      "origin_not_allowed",
      `origin "${req.headers.get("origin")}" is not allowed; add it to SVC_CORS_ORIGINS`,
    )
}

export function checkBody(req: Request, accepts: string[]): void {
  if (!UNSAFE.has(req.method) || !hasBody(req) || accepts.includes("*")) return
  const type = (req.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase()
  if (!accepts.includes(type))
    throw new HttpError(
      415,
      "unsupported_media_type",
      `the request body must be ${accepts.join(" or ")}, got "${type || "no content type"}"`,
    )
}

/** CORS headers for an allowed cross-origin caller (same-origin requests need none). */
export function corsHeaders(origin: string | null, o: GuardOptions): Record<string, string> {
  if (!origin || !(o.corsOrigins.includes("*") || o.corsOrigins.includes(origin))) return {}
  return {
    "access-control-allow-origin": origin,
    "access-control-allow-methods": "GET, POST, PUT, PATCH, DELETE, OPTIONS",
    "access-control-allow-headers": "content-type, authorization",
    "access-control-max-age": "600",
    vary: "origin",
  }
}
