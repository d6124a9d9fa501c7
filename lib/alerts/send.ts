// Sending one message to one channel, in the shape each service documents, and reading its answer:
// delivered, worth another try (no answer, 5xx, 408, 429 with the wait the service asked for), or
// refused for good (a bad token, an unknown chat: trying again cannot help). A channel with several
// targets (Telegram chats, Matrix rooms) records each one reached in `done`, so a retry sends only
// to those that were not: nobody gets the same message twice. Every error text is scrubbed of the
// channel's credentials before it leaves (the caller shows it in history, events and the API).
import { scrub, type Target } from "./channels.ts"

export type Severity = "critical" | "warning" | "info" | "resolved"

/** What goes out: one alert, or several grouped into one message. */
export interface Message {
  /** Stable per delivery: Matrix's transaction id, so a retry is not a second message. */
  id: string
  title: string
  text: string
  severity: Severity
  /** This server, named in the message. */
  server: string
  time: string
  /** The alerts grouped into this message (for the JSON webhook). */
  alerts: Record<string, unknown>[]
}

/** A failed send: `retryAfter` (seconds) when the service said when to come back, `permanent` when trying again cannot help. */
export class SendError extends Error {
  constructor(
    message: string,
    readonly permanent = false,
    readonly retryAfter?: number,
  ) {
    super(message)
  }
}

export interface SendOptions {
  signal: AbortSignal
  /** Targets of this message already reached (chats, rooms), kept across tries. */
  done: Set<string>
  fetch?: typeof fetch
}

const LIMITS: Partial<Record<Target["kind"], number>> = {
  discord: 2000,
  telegram: 4096,
  pushover: 1024,
  ntfy: 4000,
  slack: 3900,
}

/** Cuts a text to `max` characters, saying so. */
export const fit = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 2)} …`)

/** Seconds from a Retry-After header: a number of seconds or an HTTP date. */
export function retryAfterHeader(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined
  const n = Number(value)
  if (Number.isFinite(n) && n >= 0) return n
  const at = Date.parse(value)
  return Number.isNaN(at) ? undefined : Math.max(0, (at - now) / 1000)
}

/** The service's own words for a refusal, from the JSON (or text) it answered. */
function why(body: string): string {
  try {
    const j = JSON.parse(body) as Record<string, unknown>
    const parts = [j.description, j.message, j.error, j.errorDescription, j.errcode, j.errors]
      .flat()
      .filter((p) => typeof p === "string" && p)
    if (parts.length) return parts.join(": ")
  } catch {}
  return body.trim().slice(0, 200)
}

/** A service's answer as our verdict; answers the body of a success. */
async function answer(res: Response, what: string): Promise<string> {
  const body = await res.text().catch(() => "")
  if (res.ok) return body
  let retry = retryAfterHeader(res.headers.get("retry-after"))
  if (res.status === 429 && retry === undefined) {
    // Discord: retry_after (s) in the body; Telegram: parameters.retry_after; Matrix: retry_after_ms.
    try {
      const j = JSON.parse(body)
      const s = j.retry_after ?? j.parameters?.retry_after ?? (j.retry_after_ms ? j.retry_after_ms / 1000 : undefined)
      if (typeof s === "number") retry = s
    } catch {}
  }
  const text = `${what} answered ${res.status}${body ? `: ${why(body)}` : ""}`
  if (res.status === 429) throw new SendError(text, false, retry ?? 30)
  if (res.status === 408 || res.status >= 500) throw new SendError(text, false, retry)
  throw new SendError(text, true)
}

const json = (body: unknown): RequestInit => ({
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body),
})

type Sender = (t: Target, m: Message, o: Required<SendOptions>) => Promise<void>

const post = async (o: Required<SendOptions>, url: string, init: RequestInit, what: string) =>
  answer(await o.fetch(url, { ...init, signal: o.signal, redirect: "error" }), what)

const headline = (m: Message) => `${m.title}\n${m.text}`

/** Matrix access tokens from a password login, by homeserver and user (kept while the process runs). */
const matrixTokens = new Map<string, string>()

const SENDERS: Record<Target["kind"], Sender> = {
  webhook: async (t, m, o) => {
    const body = {
      [t.opts.titlekey ?? "title"]: m.title,
      [t.opts.messagekey ?? "message"]: m.text,
      severity: m.severity,
      server: m.server,
      time: m.time,
      alerts: m.alerts,
      ...t.extra,
    }
    const init = json(body)
    init.headers = { ...(init.headers as Record<string, string>), ...t.headers }
    await post(o, t.base, init, "the webhook")
  },
  ntfy: async (t, m, o) => {
    const priority = t.opts.priority || (m.severity === "critical" ? "high" : "default")
    const tags =
      t.opts.tags ||
      { critical: "rotating_light", warning: "warning", info: "information_source", resolved: "white_check_mark" }[
        m.severity
      ]
    const headers: Record<string, string> = { title: t.opts.title || m.title, priority, tags }
    if (t.opts.auth) headers.authorization = t.opts.auth
    await post(
      o,
      `${t.base}/${encodeURIComponent(t.opts.topic!)}`,
      { method: "POST", headers, body: fit(m.text, LIMITS.ntfy!) },
      "ntfy",
    )
  },
  gotify: async (t, m, o) => {
    const priority = Number(t.opts.priority) || (m.severity === "critical" ? 8 : m.severity === "resolved" ? 3 : 5)
    const init = json({ title: t.opts.title || m.title, message: m.text, priority })
    init.headers = { ...(init.headers as Record<string, string>), "x-gotify-key": t.opts.token! }
    await post(o, `${t.base}/message`, init, "Gotify")
  },
  discord: async (t, m, o) => {
    const body: Record<string, unknown> = { content: fit(headline(m), LIMITS.discord!) }
    if (t.opts.username) body.username = t.opts.username
    await post(o, `${t.base}/api/webhooks/${t.opts.id}/${encodeURIComponent(t.opts.token!)}`, json(body), "Discord")
  },
  slack: async (t, m, o) => {
    const text = fit(`*${m.title}*\n${m.text}`, LIMITS.slack!)
    if (t.opts.mode === "hook") {
      await post(o, `${t.base}/services/${t.opts.path}`, json({ text }), "Slack")
      return
    }
    // The Web API answers 200 with {"ok": false, "error": ...} for a refusal.
    const init = json({ channel: t.opts.channel, text })
    init.headers = { ...(init.headers as Record<string, string>), authorization: `Bearer ${t.opts.token}` }
    const reply = JSON.parse((await post(o, `${t.base}/api/chat.postMessage`, init, "Slack")) || "{}")
    if (!reply.ok) {
      const error = String(reply.error ?? "no ok in the answer")
      throw new SendError(
        `Slack refused the message: ${error}`,
        error !== "ratelimited",
        error === "ratelimited" ? 30 : undefined,
      )
    }
  },
  telegram: async (t, m, o) => {
    for (const chat of t.list) {
      if (o.done.has(chat)) continue
      const body: Record<string, unknown> = { chat_id: chat, text: fit(headline(m), LIMITS.telegram!) }
      if (t.opts.silent) body.disable_notification = true
      if (t.opts.preview === "no") body.disable_web_page_preview = true
      await post(o, `${t.base}/bot${t.opts.token}/sendMessage`, json(body), `Telegram (chat ${chat})`)
      o.done.add(chat)
    }
  },
  matrix: async (t, m, o) => {
    const auth = { authorization: `Bearer ${await matrixToken(t, o)}` }
    const get = async (path: string) =>
      JSON.parse(await post(o, `${t.base}/_matrix/client/v3/${path}`, { method: "GET", headers: auth }, "Matrix"))
    const rooms = t.list.length ? t.list : ((await get("joined_rooms")).joined_rooms as string[])
    for (const room of rooms) {
      if (o.done.has(room)) continue
      const id = room.startsWith("#") ? (await get(`directory/room/${encodeURIComponent(room)}`)).room_id : room
      // The transaction id makes a retried PUT the same event, never a second message.
      const txn = encodeURIComponent(`hm-${m.id}-${room}`)
      const body = JSON.stringify({ msgtype: "m.text", body: headline(m) })
      try {
        await post(
          o,
          `${t.base}/_matrix/client/v3/rooms/${encodeURIComponent(id)}/send/m.room.message/${txn}`,
          {
            method: "PUT",
            headers: { ...auth, "content-type": "application/json" },
            body,
          },
          `Matrix (room ${room})`,
        )
      } catch (err) {
        // A token the homeserver no longer knows: log in again on the next try.
        if (err instanceof SendError && / 401/.test(err.message)) matrixTokens.delete(`${t.base} ${t.opts.user}`)
        throw err
      }
      o.done.add(room)
    }
  },
  pushover: async (t, m, o) => {
    const form = new URLSearchParams({
      token: t.opts.token!,
      user: t.opts.user!,
      title: fit(t.opts.title || m.title, 250),
      message: fit(m.text, LIMITS.pushover!),
      priority: t.opts.priority || (m.severity === "critical" ? "1" : "0"),
    })
    if (t.list.length) form.set("device", t.list.join(","))
    await post(o, `${t.base}/1/messages.json`, { method: "POST", body: form }, "Pushover")
  },
  smtp: async (t, m, o) => {
    const { sendMail } = require("./smtp.ts") as typeof import("./smtp.ts")
    await sendMail(t, m, o.signal)
  },
}

/** A password login's access token (kept), or the URL's own token when it names no user. */
async function matrixToken(t: Target, o: Required<SendOptions>): Promise<string> {
  if (!t.opts.user) return t.opts.password!
  const key = `${t.base} ${t.opts.user}`
  const kept = matrixTokens.get(key)
  if (kept) return kept
  const reply = JSON.parse(
    await post(
      o,
      `${t.base}/_matrix/client/v3/login`,
      json({
        type: "m.login.password",
        identifier: { type: "m.id.user", user: t.opts.user },
        password: t.opts.password,
        device_id: "harbormaster",
        initial_device_display_name: "Harbormaster alerts",
      }),
      "Matrix login",
    ),
  )
  if (typeof reply.access_token !== "string") throw new SendError("Matrix login answered no access token", true)
  matrixTokens.set(key, reply.access_token)
  return reply.access_token
}

/**
 * Sends `m` to the channel; throws SendError (its text scrubbed of the channel's credentials). A
 * network failure or a timeout is worth another try.
 */
export async function send(t: Target, m: Message, opts: SendOptions): Promise<void> {
  const o = { ...opts, fetch: opts.fetch ?? fetch }
  try {
    await SENDERS[t.kind](t, m, o)
  } catch (err) {
    if (err instanceof SendError) throw new SendError(scrub(err.message, t.secrets), err.permanent, err.retryAfter)
    const e = err as Error & { code?: string; responseCode?: number }
    const timeout = e?.name === "TimeoutError" || e?.name === "AbortError" || o.signal.aborted
    const text = timeout ? "no answer in time" : `${e?.code ? `${e.code}: ` : ""}${e?.message ?? String(err)}`
    // A mail server's 5xx (a refused login or recipient) is for good; its 4xx and anything else may pass later.
    const permanent = typeof e?.responseCode === "number" && e.responseCode >= 500
    throw new SendError(scrub(text, t.secrets), permanent)
  }
}
