// Stand-ins on loopback that answer as the notification services do, from their documented
// request shapes and answers: Discord (webhook execute: 204, 404 Unknown Webhook, 429 with
// retry_after), Slack (webhook: 200 "ok", 403 invalid_token; chat.postMessage: {ok, error}),
// Telegram (sendMessage: {ok, result} or {ok: false, error_code, description}, 429 with
// parameters.retry_after), Gotify (POST /message with X-Gotify-Key: 200 or 401), Pushover
// (messages.json form: {status: 1} or 400 {status: 0, errors}), Matrix (password login, room
// send with a transaction id, idempotent; M_FORBIDDEN, M_LIMIT_EXCEEDED), ntfy (plain publish),
// and a JSON webhook. Each keeps what it received; `fail` queues answers to give before the
// normal ones (429 with Retry-After, 500, a refusal).

export interface Received {
  kind: string
  method: string
  path: string
  headers: Record<string, string>
  body: any
  at: number
}

export interface Receivers {
  url: string
  port: number
  received: Received[]
  /** The next `n` requests of a kind get this answer instead. */
  fail(kind: string, answer: () => Response, n?: number): void
  /** Requests of a kind wait this long before the answer (a slow service). */
  delay(kind: string, ms: number): void
  stop(): void
}

export const TOKENS = {
  discord: { id: "112233445566778899", token: "dsc-T0k3n_secret" },
  slackHook: "T0001/B0002/slackHookSecret99",
  slackBot: "xoxb-1111-2222-slackBotSecret",
  telegram: "123456:TG-secretToken_abc",
  gotify: "GtfyAppSecret.1",
  pushover: { token: "pushoverAppSecret1", user: "pushoverUserKey22" },
  matrix: { user: "alertbot", password: "matrixPassw0rd!", token: "syt_matrixAccessSecret" },
}

const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  Response.json(body, { status, headers })

export function startReceivers(hostname = "127.0.0.1"): Receivers {
  const received: Received[] = []
  const failures = new Map<string, (() => Response)[]>()
  const delays = new Map<string, number>()
  const matrixEvents = new Map<string, string>()
  const matrixRooms = new Set(["!ops:hm.test"])

  const record = async (kind: string, req: Request, url: URL) => {
    const text = await req.text()
    let body: any = text
    const type = req.headers.get("content-type") ?? ""
    if (type.includes("json")) body = JSON.parse(text)
    else if (type.includes("x-www-form-urlencoded")) body = Object.fromEntries(new URLSearchParams(text))
    received.push({
      kind,
      method: req.method,
      path: url.pathname,
      headers: Object.fromEntries(req.headers),
      body,
      at: Date.now(),
    })
  }

  const route = (url: URL, req: Request): string | undefined => {
    const p = url.pathname
    if (p.startsWith("/api/webhooks/")) return "discord"
    if (p.startsWith("/services/")) return "slack"
    if (p === "/api/chat.postMessage") return "slack-bot"
    if (/^\/bot[^/]+\/sendMessage$/.test(p)) return "telegram"
    if (p === "/message") return "gotify"
    if (p === "/1/messages.json") return "pushover"
    if (p.startsWith("/_matrix/")) return "matrix"
    if (p.startsWith("/ntfy/")) return "ntfy"
    if (p.startsWith("/hook")) return "webhook"
    return req.method === "POST" ? "ntfy" : undefined
  }

  const server = Bun.serve({
    hostname,
    port: 0,
    idleTimeout: 0,
    async fetch(req) {
      const url = new URL(req.url)
      const kind = route(url, req)
      if (!kind) return new Response("not found", { status: 404 })
      const wait = delays.get(kind)
      if (wait) await Bun.sleep(wait)
      const queued = failures.get(kind)
      if (queued?.length) {
        await record(`${kind}!`, req, url)
        return queued.shift()!()
      }
      if (kind === "matrix") return matrix(req, url)
      await record(kind, req, url)
      const last = received.at(-1)!
      switch (kind) {
        case "discord": {
          const [, , , id, token] = url.pathname.split("/")
          if (id !== TOKENS.discord.id || decodeURIComponent(token!) !== TOKENS.discord.token)
            return json({ message: "Unknown Webhook", code: 10015 }, 404)
          if (!last.body.content && !last.body.embeds)
            return json({ message: "Cannot send an empty message", code: 50006 }, 400)
          if (String(last.body.content).length > 2000)
            return json({ content: ["Must be 2000 or fewer in length."] }, 400)
          return new Response(null, { status: 204 })
        }
        case "slack":
          return url.pathname === `/services/${TOKENS.slackHook}`
            ? new Response("ok")
            : new Response("invalid_token", { status: 403 })
        case "slack-bot":
          if (last.headers.authorization !== `Bearer ${TOKENS.slackBot}`)
            return json({ ok: false, error: "invalid_auth" })
          if (!last.body.channel) return json({ ok: false, error: "channel_not_found" })
          return json({ ok: true, channel: last.body.channel, ts: "1700000000.000100" })
        case "telegram":
          if (url.pathname !== `/bot${TOKENS.telegram}/sendMessage`)
            return json({ ok: false, error_code: 401, description: "Unauthorized" }, 401)
          if (String(last.body.chat_id).startsWith("@nochat"))
            return json({ ok: false, error_code: 400, description: "Bad Request: chat not found" }, 400)
          return json({
            ok: true,
            result: { message_id: received.length, chat: { id: last.body.chat_id }, text: last.body.text },
          })
        case "gotify":
          if (last.headers["x-gotify-key"] !== TOKENS.gotify)
            return json(
              {
                error: "Unauthorized",
                errorCode: 401,
                errorDescription: "you need to provide a valid access token or user credentials to access this api",
              },
              401,
            )
          return json({
            id: received.length,
            appid: 1,
            message: last.body.message,
            title: last.body.title,
            priority: last.body.priority,
          })
        case "pushover":
          if (last.body.token !== TOKENS.pushover.token)
            return json({ token: "invalid", errors: ["application token is invalid"], status: 0, request: "r1" }, 400)
          if (last.body.user !== TOKENS.pushover.user)
            return json(
              {
                user: "invalid",
                errors: ["user identifier is not a valid user, group, or subscribed user key"],
                status: 0,
                request: "r2",
              },
              400,
            )
          return json({ status: 1, request: "r3" })
        default:
          return new Response("{}", { headers: { "content-type": "application/json" } })
      }
    },
  })

  async function matrix(req: Request, url: URL): Promise<Response> {
    const p = url.pathname.replace("/_matrix/client/v3/", "")
    const auth = req.headers.get("authorization")
    if (p === "login") {
      const body = await req.json()
      received.push({
        kind: "matrix-login",
        method: req.method,
        path: url.pathname,
        headers: {},
        body: { ...body, password: "(read)" },
        at: Date.now(),
      })
      return body.identifier?.user === TOKENS.matrix.user && body.password === TOKENS.matrix.password
        ? json({
            user_id: `@${TOKENS.matrix.user}:hm.test`,
            access_token: TOKENS.matrix.token,
            device_id: body.device_id,
          })
        : json({ errcode: "M_FORBIDDEN", error: "Invalid username or password" }, 403)
    }
    if (auth !== `Bearer ${TOKENS.matrix.token}`)
      return json({ errcode: "M_UNKNOWN_TOKEN", error: "Unknown access token" }, 401)
    if (p === "joined_rooms") return json({ joined_rooms: [...matrixRooms] })
    if (p.startsWith("directory/room/")) {
      const alias = decodeURIComponent(p.slice("directory/room/".length))
      return alias === "#ops:hm.test"
        ? json({ room_id: "!ops:hm.test", servers: ["hm.test"] })
        : json({ errcode: "M_NOT_FOUND", error: `Room alias ${alias} not found` }, 404)
    }
    const send = /^rooms\/([^/]+)\/send\/m\.room\.message\/([^/]+)$/.exec(p)
    if (send && req.method === "PUT") {
      const room = decodeURIComponent(send[1]!)
      if (!matrixRooms.has(room)) return json({ errcode: "M_FORBIDDEN", error: `User not in room ${room}` }, 403)
      const txn = `${room} ${decodeURIComponent(send[2]!)}`
      const body = await req.json()
      // A transaction id seen before answers the same event: the message is not posted twice.
      if (!matrixEvents.has(txn)) {
        matrixEvents.set(txn, `$ev${matrixEvents.size}`)
        received.push({ kind: "matrix", method: "PUT", path: url.pathname, headers: {}, body, at: Date.now() })
      }
      return json({ event_id: matrixEvents.get(txn) })
    }
    return json({ errcode: "M_UNRECOGNIZED", error: "Unrecognized request" }, 404)
  }

  return {
    url: `http://${hostname}:${server.port}`,
    port: server.port!,
    received,
    fail(kind, answer, n = 1) {
      const q = failures.get(kind) ?? []
      for (let i = 0; i < n; i++) q.push(answer)
      failures.set(kind, q)
    },
    delay(kind, ms) {
      delays.set(kind, ms)
    },
    stop() {
      server.stop(true)
    },
  }
}

/** The API bases (SVC_ALERT_API_URLS) that send every kind with one to the stand-ins. */
export const apiBases = (r: Receivers) => ({
  discord: r.url,
  slack: r.url,
  telegram: r.url,
  pushover: r.url,
})

/** Each kind's channel URL pointing at the stand-ins, with the stand-ins' credentials. */
export function channelUrls(r: Receivers) {
  const host = new URL(r.url).host
  return {
    webhook: `${r.url}/hook/alerts`,
    ntfy: `ntfy+http://${host}/ntfy/alerts`,
    gotify: `gotify://${host}/${TOKENS.gotify}/?disabletls=yes`,
    discord: `discord://${TOKENS.discord.token}@${TOKENS.discord.id}`,
    slack: `slack://hook:${TOKENS.slackHook.replaceAll("/", "-")}@webhook`,
    slackBot: `slack://xoxb:${TOKENS.slackBot.slice(5)}@C0123`,
    telegram: `telegram://${TOKENS.telegram}@telegram?chats=@ops,-1001234`,
    pushover: `pushover://shoutrrr:${TOKENS.pushover.token}@${TOKENS.pushover.user}/?devices=phone`,
    matrix: `matrix://${TOKENS.matrix.user}:${encodeURIComponent(TOKENS.matrix.password)}@${host}/?rooms=%23ops:hm.test&disableTLS=yes`,
  }
}

/** Every credential of the stand-ins: none may appear in an answer, an event, a log or the history. */
export const ALL_SECRETS = [
  TOKENS.discord.token,
  "slackHookSecret99",
  "slackBotSecret",
  "TG-secretToken_abc",
  TOKENS.gotify,
  TOKENS.pushover.token,
  TOKENS.pushover.user,
  TOKENS.matrix.password,
  encodeURIComponent(TOKENS.matrix.password),
]
