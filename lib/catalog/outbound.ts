// What a template source reaches on the network: a list's URL, a logo, a stack template's repository.
// Templates are hostile input, so every address they name is checked before anything connects to it:
// a host that resolves to a private, loopback, link-local, shared or otherwise special address is
// refused (an address on the service's own network, or a cloud's metadata service), unless the source
// is one an admin marked `local`. The connection then goes to the very address that was checked (the
// URL's host is pinned to it: a name that resolves elsewhere a moment later is never asked again), a
// redirect is followed only after its own target passed the same check, and a body is read up to a
// size limit within a deadline.
import { lookup } from "node:dns/promises"
import { isIP } from "node:net"
import { invalid, refused, timedOut, tooLarge, upstream } from "../errors/errors.ts"

/** Whether the address (v4 or v6, as text) is one no template may make the service reach. */
export function isPrivateAddress(address: string): boolean {
  const v4 = isIP(address) === 4 ? address : mappedV4(address)
  if (v4) {
    const [a, b] = v4.split(".").map(Number) as [number, number]
    return (
      a === 0 ||
      a === 10 ||
      a === 127 ||
      (a === 100 && b >= 64 && b < 128) ||
      (a === 169 && b === 254) ||
      (a === 172 && b >= 16 && b < 32) ||
      (a === 192 && b === 168) ||
      (a === 192 && b === 0) ||
      (a === 198 && (b === 18 || b === 19)) ||
      a >= 224
    )
  }
  const full = expandV6(address)
  if (!full) return true
  const first = Number.parseInt(full.slice(0, 4), 16)
  return (
    /^0{31}[01]$/.test(full) || // :: and ::1
    (first & 0xfe00) === 0xfc00 || // unique local
    (first & 0xffc0) === 0xfe80 || // link-local
    (first & 0xff00) === 0xff00 || // multicast
    full.startsWith("0064ff9b") || // NAT64 (an IPv4 address inside)
    full.startsWith("20010db8") // documentation
  )
}

/** The IPv4 address inside an IPv4-mapped or -compatible IPv6 address (`::ffff:10.0.0.1`), if it is one. */
function mappedV4(address: string): string | undefined {
  const full = expandV6(address)
  if (!full || !/^0{20}(ffff|0000)/.test(full)) return undefined
  const n = full.slice(24)
  return [0, 2, 4, 6].map((i) => Number.parseInt(n.slice(i, i + 2), 16)).join(".")
}

/** An IPv6 address as 32 hex digits, or undefined when it is none. */
function expandV6(address: string): string | undefined {
  const a = address.replace(/^\[|\]$/g, "").split("%")[0]!
  if (isIP(a) !== 6) return undefined
  let text = a
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)
  if (v4) {
    const hex = v4[1]!.split(".").map((x) => Number(x).toString(16).padStart(2, "0"))
    text = text.slice(0, v4.index) + `${hex[0]}${hex[1]}:${hex[2]}${hex[3]}`
  }
  const [head, tail] = text.split("::") as [string, string?]
  const parts = (s: string | undefined) => (s ? s.split(":") : [])
  const h = parts(head)
  const t = parts(tail)
  const groups = tail === undefined ? h : [...h, ...Array(8 - h.length - t.length).fill("0"), ...t]
  return groups.map((g) => g.padStart(4, "0")).join("")
}

/** Where a source may reach: anywhere its checks allow, and private addresses only when an admin marked it local. */
export interface Reach {
  local: boolean
}

/** A URL's host resolved and checked: the address to connect to. 403 `private_address` for one a template may not reach. */
export async function checkedAddress(url: URL, reach: Reach): Promise<string> {
  const host = url.hostname.replace(/^\[|\]$/g, "")
  const addresses = isIP(host)
    ? [host]
    : await lookup(host, { all: true, verbatim: true }).then(
        (all) => all.map((a) => a.address),
        (err) => {
          throw upstream(`${host} does not resolve: ${err instanceof Error ? err.message : err}`, "unresolved")
        },
      )
  const bad = addresses.find(isPrivateAddress)
  if (bad && !reach.local)
    throw refused(
      `${host} is ${bad === host ? "" : `at ${bad}, `}a private, loopback or link-local address: a source reaches such addresses only when an admin marked it local`,
      "private_address",
    )
  return addresses[0]!
}

export interface OutboundGet {
  reach: Reach
  /** The largest body read (bytes): past it the answer is 413 `too_large`. */
  maxBytes: number
  /** Seconds for the whole exchange. */
  timeout: number
  accept?: string
  signal?: AbortSignal
}

/** A GET of a template source's URL (see the module's comment): the body and its content type. */
export async function outboundGet(target: string, o: OutboundGet): Promise<{ body: Uint8Array; type: string }> {
  let url = parseHttpUrl(target)
  const deadline = AbortSignal.timeout(o.timeout * 1000)
  const signal = o.signal ? AbortSignal.any([o.signal, deadline]) : deadline
  for (let hops = 0; ; hops++) {
    const address = await checkedAddress(url, o.reach)
    const pinned = new URL(url)
    pinned.hostname = isIP(address) === 6 ? `[${address}]` : address
    let res: Response
    try {
      res = await fetch(pinned, {
        redirect: "manual",
        signal,
        decompress: true,
        headers: { host: url.host, accept: o.accept ?? "*/*", "user-agent": "Harbormaster catalog" },
        ...(url.protocol === "https:" ? { tls: { serverName: url.hostname, checkServerIdentity: identity(url) } } : {}),
      } as RequestInit)
    } catch (err) {
      if (deadline.aborted) throw timedOut(`${url.origin} did not answer within ${o.timeout} s`, "source_timeout")
      throw upstream(`${url.origin} could not be reached: ${err instanceof Error ? err.message : err}`, "source_failed")
    }
    if (res.status >= 300 && res.status < 400 && res.headers.get("location")) {
      await res.body?.cancel()
      if (hops >= 3) throw upstream(`${url.origin} redirected more than 3 times`, "source_failed")
      url = parseHttpUrl(new URL(res.headers.get("location")!, url).href)
      continue
    }
    if (!res.ok) {
      await res.body?.cancel()
      throw upstream(`${url.origin} answered ${res.status} ${res.statusText}`.trim(), "source_failed")
    }
    return { body: await readCapped(res, o.maxBytes, url), type: res.headers.get("content-type") ?? "" }
  }
}

/** The server's certificate checked against the URL's own host name, not the address the connection was pinned to. */
function identity(url: URL) {
  const tls = require("node:tls") as typeof import("node:tls")
  return (_: string, cert: import("node:tls").PeerCertificate) => tls.checkServerIdentity(url.hostname, cert)
}

/** An http(s) URL without credentials (400 `invalid_url` otherwise). */
export function parseHttpUrl(text: string): URL {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    throw refusedUrl(text)
  }
  if ((url.protocol !== "http:" && url.protocol !== "https:") || url.username || url.password) throw refusedUrl(text)
  return url
}

const refusedUrl = (text: string) =>
  invalid(`${JSON.stringify(text.slice(0, 200))} is not an http or https URL without credentials`, "invalid_url")

async function readCapped(res: Response, max: number, url: URL): Promise<Uint8Array> {
  const declared = Number(res.headers.get("content-length") ?? -1)
  if (declared > max) {
    await res.body?.cancel()
    throw tooLarge(`${url.origin} sent ${declared} bytes; at most ${max} are read`, "source_too_large")
  }
  const chunks: Uint8Array[] = []
  let size = 0
  const reader = res.body!.getReader()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) return Buffer.concat(chunks)
    size += value.length
    if (size > max) {
      await reader.cancel().catch(() => {})
      throw tooLarge(`${url.origin} sent more than ${max} bytes; at most ${max} are read`, "source_too_large")
    }
    chunks.push(value)
  }
}
