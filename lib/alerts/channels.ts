// A channel's address: the service URL people already keep for their notifications
// (`discord://token@id`, `smtp://user:pass@host:587/?from=...&to=...`), read into what a sender
// needs, built from a form's fields, and shown with every credential masked. The full URL is kept
// only in <data>/alerts/channels.json (sealed, mode 0600); what leaves this module for a person is `masked`
// (the service's one masking of kept URLs, with the path hidden where it is the credential),
// and `secrets` lists each credential so that an error text can be scrubbed of it.
import { maskUrl, MASK } from "../credentials/urls.ts"
import { invalid } from "../errors/errors.ts"

export const KINDS = [
  "webhook",
  "ntfy",
  "gotify",
  "discord",
  "slack",
  "telegram",
  "matrix",
  "pushover",
  "smtp",
] as const
export type Kind = (typeof KINDS)[number]

/** What a sender needs of a channel: `base` is where its API answers (scheme, host, port, path prefix). */
export interface Target {
  kind: Kind
  /** Where requests go: the service's own API, or the host of the URL. */
  base: string
  /** Each credential, to scrub from any text shown (errors, events). */
  secrets: string[]
  /** The URL with its credentials replaced by `***` (lib/credentials/urls.ts's maskUrl). */
  masked: string
  /** What the kind reads of the URL (tokens, chats, rooms, recipients, options). */
  opts: Record<string, string>
  /** Lists: chats, rooms, recipients, devices. */
  list: string[]
  /** Headers asked for in the URL (a generic webhook's `@Name=value`). */
  headers: Record<string, string>
  /** Extra JSON members asked for in the URL (a generic webhook's `$key=value`). */
  extra: Record<string, string>
}

const yes = (v: string | null | undefined) => v !== null && v !== undefined && /^(1|yes|true|on)$/i.test(v)
const splitList = (v: string | null) =>
  (v ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)
const dec = (s: string) => {
  try {
    return decodeURIComponent(s)
  } catch {
    throw invalid("the address has a broken %-escape", "invalid_channel_url")
  }
}
/** A query parameter, its name in any case (the URL form's options are case-insensitive). */
const param = (u: Address, name: string): string | null => {
  for (const [k, v] of u.searchParams) if (k.toLowerCase() === name.toLowerCase()) return v
  return null
}
const hostPort = (u: Address) => u.host
const bad = (message: string) => invalid(message, "invalid_channel_url")

/** The service's own API of each kind with one (tests and relays may point it elsewhere: SVC_ALERT_API_URLS). */
export const API_BASES: Partial<Record<Kind, string>> = {
  discord: "https://discord.com",
  slack: "https://hooks.slack.com",
  telegram: "https://api.telegram.org",
  pushover: "https://api.pushover.net",
}
/** Slack's Web API (a bot token) answers on another host than its webhooks. */
export const SLACK_API = "https://slack.com"

function target(kind: Kind, base: string, secrets: (string | undefined)[], more: Partial<Target> = {}) {
  return {
    kind,
    base,
    masked: "",
    secrets: [...new Set(secrets.filter((s): s is string => Boolean(s) && s!.length >= 4))],
    opts: {},
    list: [],
    headers: {},
    extra: {},
    ...more,
  } satisfies Target
}

/** The parts of an address that the kinds read (a URL's names, the values as written). */
type Address = Pick<
  URL,
  "protocol" | "username" | "password" | "host" | "hostname" | "port" | "pathname" | "searchParams"
>

type Parser = (u: Address, raw: string, bases: Partial<Record<Kind, string>>) => Target

const PARSERS: Record<string, Parser> = {
  // generic+https://host/path?@Header=v&$field=v, or a plain http(s) URL: a JSON POST.
  generic: (u) => webhook(u, true),
  ntfy: (u) => {
    const topic = dec(u.pathname.replace(/^\/+|\/+$/g, ""))
    if (!topic) throw bad("an ntfy address names its topic: ntfy://host/topic")
    const scheme = param(u, "scheme") === "http" || param(u, "disabletls") === "yes" ? "http" : "https"
    const host = u.host || "ntfy.sh"
    const user = dec(u.username)
    const pass = dec(u.password)
    const auth = pass ? (user ? `Basic ${btoa(`${user}:${pass}`)}` : `Bearer ${pass}`) : ""
    return target("ntfy", `${scheme}://${host}`, [pass, topic, auth], {
      opts: {
        topic,
        auth,
        priority: param(u, "priority") ?? "",
        tags: param(u, "tags") ?? "",
        title: param(u, "title") ?? "",
      },
    })
  },
  gotify: (u) => {
    const parts = u.pathname.split("/").filter(Boolean)
    const token = dec(parts.pop() ?? "")
    if (!token) throw bad("a Gotify address ends in its application token: gotify://host/token")
    const scheme = yes(param(u, "disabletls")) ? "http" : "https"
    const prefix = parts.length ? `/${parts.join("/")}` : ""
    return target("gotify", `${scheme}://${hostPort(u)}${prefix}`, [token], {
      opts: { token, priority: param(u, "priority") ?? "", title: param(u, "title") ?? "" },
    })
  },
  discord: (u, _, bases) => {
    const token = dec(u.username || u.password)
    const id = u.hostname
    if (!token || !/^\d+$/.test(id)) throw bad("a Discord address is discord://token@webhook-id")
    return target("discord", bases.discord ?? API_BASES.discord!, [token], {
      opts: { id, token, username: param(u, "username") ?? "" },
    })
  },
  slack: (u, _, bases) => {
    const user = dec(u.username)
    const pass = dec(u.password)
    // slack://hook:T/B/X@webhook (or with dashes), slack://xoxb:token@channel, or the older slack://[bot@]T/B/X.
    if (user && pass) {
      if (user === "hook") {
        const parts = pass.split(/[/-]/)
        if (parts.length !== 3) throw bad("a Slack webhook address is slack://hook:T…-B…-X…@webhook")
        return slackHook(parts.join("/"), bases)
      }
      const token = `${user}-${pass}`
      const channel = dec(u.hostname)
      if (!/^xox[a-z]$/.test(user) || !channel) throw bad("a Slack bot address is slack://xoxb:token@channel")
      return target("slack", bases.slack ? bases.slack : SLACK_API, [token, pass], {
        opts: { mode: "bot", token, channel },
      })
    }
    const parts = [u.hostname, ...u.pathname.split("/").filter(Boolean)].map(dec)
    if (parts.length !== 3) throw bad("a Slack address is slack://hook:T…-B…-X…@webhook or slack://xoxb:token@channel")
    return slackHook(parts.join("/"), bases)
  },
  telegram: (u, _, bases) => {
    // The bot token (`123456:ABC-DEF`) holds a colon, so the URL reads it as user and password.
    const token = u.password ? `${dec(u.username)}:${dec(u.password)}` : dec(u.username)
    const chats = splitList(param(u, "chats") ?? param(u, "channels"))
    if (!token || !chats.length) throw bad("a Telegram address is telegram://token@telegram?chats=@channel,chat-id")
    return target("telegram", bases.telegram ?? API_BASES.telegram!, [token, dec(u.password)], {
      list: chats,
      opts: {
        token,
        silent: param(u, "notification") !== null && !yes(param(u, "notification")) ? "yes" : "",
        preview: param(u, "preview") ?? "",
      },
    })
  },
  matrix: (u) => {
    const user = dec(u.username)
    const pass = dec(u.password)
    if (!pass || !u.host)
      throw bad("a Matrix address is matrix://user:password@host/?rooms=!id:server (or :token@host)")
    const scheme = yes(param(u, "disabletls")) ? "http" : "https"
    return target("matrix", `${scheme}://${u.host}`, [pass], {
      list: splitList(param(u, "rooms") ?? param(u, "room")),
      opts: { user, password: pass },
    })
  },
  pushover: (u, _, bases) => {
    const token = dec(u.password)
    const user = dec(u.hostname)
    if (!token || !user) throw bad("a Pushover address is pushover://shoutrrr:apiToken@userKey/?devices=phone")
    return target("pushover", bases.pushover ?? API_BASES.pushover!, [token, user], {
      list: splitList(param(u, "devices")),
      opts: { token, user, priority: param(u, "priority") ?? "", title: param(u, "title") ?? "" },
    })
  },
  smtp: (u) => {
    const to = splitList(param(u, "to") ?? param(u, "toaddresses"))
    const from = param(u, "from") ?? param(u, "fromaddress") ?? ""
    if (!u.hostname || !from || !to.length) throw bad("an e-mail address is smtp://user:pass@host:587/?from=a@b&to=c@d")
    const pass = dec(u.password)
    const encryption = (param(u, "encryption") ?? "auto").toLowerCase()
    if (!["auto", "none", "explicittls", "implicittls"].includes(encryption))
      throw bad("encryption is auto, none, explicittls (STARTTLS) or implicittls")
    const port = u.port || (u.protocol === "smtps:" ? "465" : "25")
    return target("smtp", `smtp://${u.hostname}:${port}`, [pass], {
      list: to,
      opts: {
        host: u.hostname.replace(/^\[|\]$/g, ""),
        port,
        user: dec(u.username),
        password: pass,
        from,
        fromname: param(u, "fromname") ?? "",
        subject: param(u, "subject") ?? param(u, "title") ?? "",
        // smtps:// and port 465 are TLS from the first byte; usestarttls=no leaves STARTTLS out of auto.
        encryption:
          u.protocol === "smtps:"
            ? "implicittls"
            : encryption === "auto" && port === "465"
              ? "implicittls"
              : encryption,
        starttls: param(u, "usestarttls") === null || yes(param(u, "usestarttls")) ? "yes" : "",
        auth: (param(u, "auth") ?? "").toLowerCase(),
      },
    })
  },
}
PARSERS.smtps = PARSERS.smtp!

/** A Slack webhook's path (T…/B…/X…): its last part is the secret. */
const slackHook = (path: string, bases: Partial<Record<Kind, string>>): Target =>
  target("slack", bases.slack ?? API_BASES.slack!, [path.split("/")[2], path], { opts: { mode: "hook", path } })

function webhook(u: Address, secure: boolean): Target {
  const headers: Record<string, string> = {}
  const extra: Record<string, string> = {}
  const forward = new URLSearchParams()
  const opts: Record<string, string> = { titlekey: "title", messagekey: "message" }
  for (const [k, v] of u.searchParams) {
    const key = k.toLowerCase()
    if (k.startsWith("@")) headers[k.slice(1).toLowerCase()] = v
    else if (k.startsWith("$")) extra[k.slice(1)] = v
    else if (key === "titlekey" || key === "messagekey") opts[key] = v
    else if (key !== "template" && key !== "disabletls" && key !== "scheme")
      forward.append(k.startsWith("_") ? k.slice(1) : k, v)
  }
  const origin = `${secure && !yes(param(u, "disabletls")) ? "https" : "http"}://${u.host}`
  const password = dec(u.password)
  if (u.username || password) headers.authorization = `Basic ${btoa(`${dec(u.username)}:${password}`)}`
  const path = u.pathname !== "/" ? u.pathname : ""
  const query = forward.toString()
  return target(
    "webhook",
    `${origin}${path}${query ? `?${query}` : ""}`,
    [...Object.values(headers), password, ...path.split("/").map(dec), ...forward.values()],
    { opts, headers, extra },
  )
}

/**
 * Reads a channel's URL; throws `invalid` with what a right one looks like. `bases` points the
 * services' own APIs elsewhere (SVC_ALERT_API_URLS).
 */
export function parseChannelUrl(raw: string, bases: Partial<Record<Kind, string>> = {}): Target {
  const text = raw.trim()
  if (text.length > 4096) throw bad("a channel address is at most 4096 characters")
  const m = /^([a-z][a-z0-9+.-]*):\/\//i.exec(text)
  if (!m) throw bad(`not a channel address: it starts with scheme:// (${KINDS.join(", ")}, generic+https, https)`)
  let scheme = m[1]!.toLowerCase()
  let rest = text.slice(m[0].length)
  // generic+https://… and ntfy+https://… carry the transport after the plus.
  const plus = /^(generic|ntfy)\+(https?)$/.exec(scheme)
  if (plus) {
    rest = `${rest}${rest.includes("?") ? "&" : "?"}${plus[2] === "http" ? "disabletls=yes&scheme=http" : ""}`
    scheme = plus[1]!
  }
  const parse = scheme === "http" || scheme === "https" ? undefined : PARSERS[scheme]
  if (!parse && scheme !== "http" && scheme !== "https")
    throw bad(`${scheme}:// is not a kind of channel here (${KINDS.join(", ")}, generic+https, https)`)
  const t = parse ? parse(parts(scheme, rest), text, bases) : webhook(safeUrl(text), scheme === "https")
  return { ...t, masked: masked(t.kind, text) }
}

/** Kinds whose path is a credential: a webhook's, Gotify's token, ntfy's topic (anyone who knows it may publish). */
const PATH_IS_SECRET = new Set<Kind>(["webhook", "gotify", "ntfy"])

/** The address as anyone may see it: the service's one masking of kept URLs, and Pushover's user key (its host). */
function masked(kind: Kind, url: string): string {
  const shown = maskUrl(url, { path: PATH_IS_SECRET.has(kind) ? "hide" : undefined })
  return kind === "pushover" ? shown.replace(/@[^/?#]*/, `@${MASK}`) : shown
}

/** The parts of `user:pass@host:port/path?query` as written: a numeric webhook id stays a name, not an IPv4 address. */
function parts(scheme: string, rest: string): Address {
  const cut = rest.search(/[/?]/)
  const authority = cut === -1 ? rest : rest.slice(0, cut)
  // A room alias (`#room:server`) may stand unescaped in the query: nothing is a fragment here.
  const tail = cut === -1 ? "" : rest.slice(cut)
  const q = tail.indexOf("?")
  const at = authority.lastIndexOf("@")
  const userinfo = at === -1 ? "" : authority.slice(0, at)
  const host = at === -1 ? authority : authority.slice(at + 1)
  const colon = userinfo.indexOf(":")
  const port = /:(\d{1,5})$/.exec(host)?.[1] ?? ""
  if (/[\s<>"{}|\\^`]/.test(host)) throw bad("the channel address has a bad host")
  return {
    protocol: `${scheme}:`,
    username: colon === -1 ? userinfo : userinfo.slice(0, colon),
    password: colon === -1 ? "" : userinfo.slice(colon + 1),
    host,
    hostname: port ? host.slice(0, -port.length - 1) : host,
    port,
    pathname: (q === -1 ? tail : tail.slice(0, q)) || "/",
    searchParams: new URLSearchParams(q === -1 ? "" : tail.slice(q + 1)),
  }
}

function safeUrl(text: string): URL {
  try {
    return new URL(text)
  } catch {
    throw bad("the channel address is not a URL")
  }
}

/** Replaces every credential of `t` in `text` by ***: for errors, events and history. */
export function scrub(text: string, secrets: string[]): string {
  let out = text
  for (const s of [...secrets].sort((a, b) => b.length - a.length)) {
    if (!s) continue
    out = out.split(s).join(MASK)
    const e = encodeURIComponent(s)
    if (e !== s) out = out.split(e).join(MASK)
  }
  return out
}

/** The fields of each kind's form, in order; `secret` ones are never shown again. */
export const FORMS: Record<
  Kind,
  { name: string; label: string; secret?: boolean; required?: boolean; hint?: string }[]
> = {
  webhook: [
    { name: "url", label: "URL", required: true, hint: "https://hooks.example.com/alerts" },
    { name: "token", label: "Bearer token", secret: true },
  ],
  ntfy: [
    { name: "host", label: "Server", hint: "ntfy.sh" },
    { name: "topic", label: "Topic", required: true, secret: true },
    { name: "username", label: "User" },
    { name: "password", label: "Password or access token", secret: true },
    { name: "http", label: "Plain HTTP (no TLS)", hint: "yes" },
  ],
  gotify: [
    { name: "host", label: "Server (host:port/path)", required: true, hint: "gotify.example.com" },
    { name: "token", label: "Application token", required: true, secret: true },
    { name: "priority", label: "Priority", hint: "5" },
    { name: "http", label: "Plain HTTP (no TLS)", hint: "yes" },
  ],
  discord: [
    { name: "webhook_id", label: "Webhook id", required: true, hint: "123456789012345678" },
    { name: "token", label: "Webhook token", required: true, secret: true },
  ],
  slack: [
    { name: "webhook", label: "Webhook (T…/B…/X…)", secret: true, hint: "T000/B000/XXXX" },
    { name: "bot_token", label: "Or a bot token (xoxb-…)", secret: true },
    { name: "channel", label: "Channel (with a bot token)", hint: "C0123456789" },
  ],
  telegram: [
    { name: "token", label: "Bot token", required: true, secret: true, hint: "123456:ABC-DEF…" },
    { name: "chats", label: "Chats (ids or @channels, comma-separated)", required: true },
  ],
  matrix: [
    { name: "host", label: "Homeserver (host:port)", required: true, hint: "matrix.example.org" },
    { name: "user", label: "User (empty with an access token)" },
    { name: "password", label: "Password or access token", required: true, secret: true },
    { name: "rooms", label: "Rooms (!id:server or #alias:server, comma-separated)" },
    { name: "http", label: "Plain HTTP (no TLS)", hint: "yes" },
  ],
  pushover: [
    { name: "token", label: "Application API token", required: true, secret: true },
    { name: "user", label: "User key", required: true, secret: true },
    { name: "devices", label: "Devices (comma-separated)" },
    { name: "priority", label: "Priority (-1, 0, 1)" },
  ],
  smtp: [
    { name: "host", label: "SMTP server", required: true, hint: "mail.example.com" },
    { name: "port", label: "Port", hint: "587" },
    { name: "username", label: "User" },
    { name: "password", label: "Password", secret: true },
    { name: "from", label: "From", required: true, hint: "harbormaster@example.com" },
    { name: "to", label: "To (comma-separated)", required: true },
    { name: "encryption", label: "Encryption (auto, explicittls, implicittls, none)", hint: "auto" },
  ],
}

const e = encodeURIComponent

/** The URL a form's fields make (checked by reading it back). */
export function urlFromForm(kind: Kind, fields: Record<string, string | undefined>): string {
  const f = (k: string) => (fields[k] ?? "").trim()
  for (const field of FORMS[kind] ?? [])
    if (field.required && !f(field.name)) throw invalid(`${field.label} is needed`, "invalid_channel_form")
  const q = (pairs: [string, string][]) => {
    const s = pairs
      .filter(([, v]) => v)
      .map(([k, v]) => `${k}=${e(v)}`)
      .join("&")
    return s ? `?${s}` : ""
  }
  const plain = f("http") ? yes(f("http")) : false
  switch (kind) {
    case "webhook": {
      const u = safeUrl(f("url"))
      return f("token") ? `${u.href}${u.search ? "&" : "?"}@Authorization=${e(`Bearer ${f("token")}`)}` : u.href
    }
    case "ntfy": {
      const auth = f("password") ? `${e(f("username"))}:${e(f("password"))}@` : ""
      return `ntfy://${auth}${f("host") || "ntfy.sh"}/${e(f("topic"))}${q([["scheme", plain ? "http" : ""]])}`
    }
    case "gotify":
      return `gotify://${f("host").replace(/\/+$/, "")}/${e(f("token"))}/${q([
        ["priority", f("priority")],
        ["disabletls", plain ? "yes" : ""],
      ])}`
    case "discord":
      return `discord://${e(f("token"))}@${f("webhook_id")}`
    case "slack":
      if (f("bot_token")) {
        const [prefix, ...token] = f("bot_token").split("-")
        if (!f("channel")) throw invalid("a bot token needs its channel", "invalid_channel_form")
        return `slack://${e(prefix!)}:${e(token.join("-"))}@${e(f("channel"))}`
      }
      if (!f("webhook")) throw invalid("a webhook or a bot token is needed", "invalid_channel_form")
      return `slack://hook:${f("webhook")
        .replace(/^https?:\/\/hooks\.slack\.com\/services\//, "")
        .split("/")
        .map(e)
        .join("-")}@webhook`
    case "telegram": {
      const [id, ...secret] = f("token").split(":")
      return `telegram://${e(id!)}${secret.length ? `:${e(secret.join(":"))}` : ""}@telegram${q([["chats", f("chats")]])}`
    }
    case "matrix":
      return `matrix://${e(f("user"))}:${e(f("password"))}@${f("host")}/${q([
        ["rooms", f("rooms")],
        ["disableTLS", plain ? "yes" : ""],
      ])}`
    case "pushover":
      return `pushover://shoutrrr:${e(f("token"))}@${e(f("user"))}/${q([
        ["devices", f("devices")],
        ["priority", f("priority")],
      ])}`
    case "smtp": {
      const auth = f("username") ? `${e(f("username"))}${f("password") ? `:${e(f("password"))}` : ""}@` : ""
      return `smtp://${auth}${f("host")}:${f("port") || "587"}/${q([
        ["from", f("from")],
        ["to", f("to")],
        ["encryption", f("encryption")],
      ])}`
    }
  }
}
