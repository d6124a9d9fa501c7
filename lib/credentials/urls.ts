// Kept URLs as they may be shown, and the origin a credential kept with one is bound to. One place
// for every room that keeps a URL (backup repositories, git remotes, notification channels,
// registries): what `maskUrl` hides is hidden everywhere alike.
//
// A URL here is what a person gave: a plain URL (https://user:pass@host/path?token=...), one behind
// a tool's prefix (restic's `rest:https://...`, `s3:https://...`, a notifier's `ntfy+https://...`),
// an ssh remote (`ssh://git@host/x.git`, `git@host:x.git`, restic's `sftp:user@host:/path`) or a
// local path.

export const MASK = "***"

/** Query parameters whose value is a secret: `?token=`, `?access_key=`, `?sig=`, `?password=`... */
const SECRET_PARAM = /token|secret|pass|pwd|key|sig|auth|credential|session|code/i

/** Schemes whose user name is an account, never a secret (a token goes as a password or a key there). */
const ACCOUNT_USER = /^(?:.*\+)?(?:ssh|sftp|git\+ssh|ssh\+git)$/i

interface Parts {
  /** Everything before `//`: `https:`, `rest:http:`, `ntfy+https:`. */
  scheme: string
  userinfo: string | undefined
  /** host[:port] */
  host: string
  /** The path, query and fragment. */
  rest: string
}

/** A URL with an authority (`scheme://[userinfo@]host/...`), taken apart without judging it; undefined otherwise. */
function parts(url: string): Parts | undefined {
  const m = /^((?:[a-z][a-z0-9+.-]*:)+)\/\/([^/?#]*)(.*)$/is.exec(url)
  if (!m) return undefined
  const [, scheme, authority, rest] = m as unknown as [string, string, string, string]
  const at = authority.lastIndexOf("@")
  return {
    scheme,
    userinfo: at >= 0 ? authority.slice(0, at) : undefined,
    host: at >= 0 ? authority.slice(at + 1) : authority,
    rest,
  }
}

/** The last scheme of a prefixed one: `rest:http:` is http. */
const innerScheme = (scheme: string) => scheme.slice(0, -1).split(":").at(-1)!

function maskUserinfo(scheme: string, userinfo: string): string {
  const colon = userinfo.indexOf(":")
  if (colon >= 0) return `${userinfo.slice(0, colon)}:${MASK}`
  return ACCOUNT_USER.test(innerScheme(scheme)) ? userinfo : MASK
}

function maskQuery(rest: string): string {
  return rest.replace(/([?&;])([^=&;#]*)=([^&;#]*)/g, (whole, sep: string, name: string, value: string) =>
    SECRET_PARAM.test(decodeURIComponentSafe(name)) && value ? `${sep}${name}=${MASK}` : whole,
  )
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s)
  } catch {
    return s
  }
}

/**
 * `url` as it may be shown to anyone: the password of its user information, a user name that may be a
 * token (any but an ssh account's), the values of secret-looking query parameters and, with
 * `path: "hide"` (a webhook whose path is its secret), its path, each as `***`. A text that is no URL
 * with an authority (a local path, `git@host:x.git`, `sftp:user@host:/srv`) carries no password and
 * is shown as it is.
 */
export function maskUrl(url: string, opts: { path?: "hide" } = {}): string {
  const p = parts(url)
  if (!p) return url
  const userinfo = p.userinfo === undefined ? "" : `${maskUserinfo(p.scheme, p.userinfo)}@`
  const rest = opts.path === "hide" ? (p.rest && p.rest !== "/" ? `/${MASK}` : p.rest) : maskQuery(p.rest)
  return `${p.scheme}//${userinfo}${p.host}${rest}`
}

/** The secrets of `url` that `maskUrl` hides, longest first. */
function secretsOf(url: string): string[] {
  const p = parts(url)
  if (!p) return []
  const found: string[] = []
  if (p.userinfo !== undefined) {
    const colon = p.userinfo.indexOf(":")
    if (colon >= 0) found.push(p.userinfo.slice(colon + 1))
    else if (!ACCOUNT_USER.test(innerScheme(p.scheme))) found.push(p.userinfo)
  }
  for (const m of p.rest.matchAll(/[?&;]([^=&;#]*)=([^&;#]*)/g))
    if (SECRET_PARAM.test(decodeURIComponentSafe(m[1]!)) && m[2]) found.push(m[2])
  const all = found.filter(Boolean).flatMap((s) => [s, decodeURIComponentSafe(s)])
  return [...new Set(all)].sort((a, b) => b.length - a.length)
}

/** A secret this short is hidden only where it stands in a URL: anywhere else it would take letters out of every word. */
const SHORTEST_LOOSE = 4

/**
 * `text` with the credentials of `url` taken out (a tool's message that quotes the URL, as given or
 * rewritten): the user information of every URL in it masked as `maskUrl` masks it, and each secret
 * of `url` (as written, and decoded) wherever else it stands.
 */
export function hideIn(text: string, url: string): string {
  let out = text.replace(
    /((?:[a-z][a-z0-9+.-]*:)+\/\/)([^\s/?#@]+)@/gi,
    (_, scheme: string, userinfo: string) => `${scheme}${maskUserinfo(scheme, userinfo)}@`,
  )
  for (const secret of secretsOf(url)) if (secret.length >= SHORTEST_LOOSE) out = out.split(secret).join(MASK)
  return out
}

/** An ssh remote in scp form: `user@host:path`, or restic's `sftp:user@host:/path`. */
const SCP = /^(?:sftp:)?(?:([^@/:]+)@)?([^/:@]+):(?!\/\/)/

/**
 * Where a credential given with `url` goes: its scheme (the tool's prefix included), host and port,
 * and over ssh its user; two URLs with the same origin reach the same server as the same account.
 * A local path is `file:`; a form this does not know is itself (so any change of it is a change of
 * origin).
 */
export function originOf(url: string): string {
  const p = parts(url)
  if (p) {
    const scheme = p.scheme.toLowerCase()
    const inner = innerScheme(scheme)
    let host = p.host.toLowerCase()
    try {
      host = new URL(`${inner}://${p.host}`).host
    } catch {}
    const user = ACCOUNT_USER.test(inner) && p.userinfo ? `${p.userinfo.split(":")[0]}@` : ""
    return `${scheme}//${user}${host}`
  }
  if (url.startsWith("/")) return "file:"
  const scp = SCP.exec(url)
  if (scp) return `ssh://${scp[1] ? `${scp[1]}@` : ""}${scp[2]!.toLowerCase()}`
  return url
}

/**
 * The credential stored for `before` as it may go with `after`: `given` when the change gives one
 * (`""` removes it), else the stored one while the origin stays the same, else nothing: a credential
 * never follows its URL to another server.
 */
export function keptFor<T>(
  before: { url: string; credential: T | undefined } | undefined,
  after: { url: string; given: T | "" | null | undefined },
): T | undefined {
  if (after.given === "") return undefined
  if (after.given !== undefined && after.given !== null) return after.given
  if (!before || originOf(before.url) !== originOf(after.url)) return undefined
  return before.credential
}
