// Each kind against a stand-in answering as its service does (tests/support/receivers.ts).
import { afterAll, beforeAll, expect, test } from "bun:test"
import { parseChannelUrl } from "#lib/alerts/channels.ts"
import { send, SendError, type Message } from "#lib/alerts/send.ts"
import { ALL_SECRETS, apiBases, channelUrls, startReceivers, TOKENS, type Receivers } from "../../support/receivers.ts"

let r: Receivers
let urls: ReturnType<typeof channelUrls>
beforeAll(() => {
  r = startReceivers()
  urls = channelUrls(r)
})
afterAll(() => r.stop())

const message = (over: Partial<Message> = {}): Message => ({
  id: "m1",
  title: "container web-1 exited with code 3",
  text: "web-1 (stack shop) exited with code 3",
  severity: "critical",
  server: "srv1",
  time: "2026-01-02T03:04:05.000Z",
  alerts: [{ rule: "crashes", state: "firing" }],
  ...over,
})
const go = (url: string, m = message(), done = new Set<string>()) =>
  send(parseChannelUrl(url, apiBases(r)), m, { signal: AbortSignal.timeout(5000), done })
const last = (kind: string) => r.received.filter((x) => x.kind === kind).at(-1)!

test("Discord: the webhook execute with the message as content (204)", async () => {
  await go(urls.discord)
  expect(last("discord").path).toBe(`/api/webhooks/${TOKENS.discord.id}/${TOKENS.discord.token}`)
  expect(last("discord").body.content).toBe("container web-1 exited with code 3\nweb-1 (stack shop) exited with code 3")
  // Discord refuses content over 2000 characters: the message is cut to fit.
  await go(urls.discord, message({ text: "x".repeat(5000) }))
  expect(last("discord").body.content.length).toBeLessThanOrEqual(2000)
})

test("Slack: a webhook's text, and chat.postMessage with the bot token (an ok: false answer is a refusal)", async () => {
  await go(urls.slack)
  expect(last("slack").body.text).toContain("*container web-1 exited with code 3*")
  await go(urls.slackBot)
  expect(last("slack-bot").body).toMatchObject({ channel: "C0123" })
  expect(last("slack-bot").headers.authorization).toBe(`Bearer ${TOKENS.slackBot}`)
  await expect(go("slack://xoxb:9999-wrong@C0123")).rejects.toMatchObject({
    permanent: true,
    message: "Slack refused the message: invalid_auth",
  })
})

test("Telegram: one sendMessage per chat; a retry sends only to the chats not reached", async () => {
  const done = new Set<string>()
  await go(urls.telegram, message(), done)
  expect(done).toEqual(new Set(["@ops", "-1001234"]))
  const sent = r.received.filter((x) => x.kind === "telegram").map((x) => x.body.chat_id)
  expect(sent.slice(-2)).toEqual(["@ops", "-1001234"])
  // The second chat fails once: the retry goes to it alone.
  const before = r.received.filter((x) => x.kind === "telegram").length
  const partial = new Set<string>()
  const url = urls.telegram.replace("@ops,-1001234", "@ops,-1009")
  let calls = 0
  const flaky = parseChannelUrl(url, apiBases(r))
  const fetchOnce: typeof fetch = (async (input: RequestInfo | URL, init?: RequestInit) =>
    ++calls === 2 ? new Response("{}", { status: 502 }) : fetch(input, init)) as typeof fetch
  await expect(
    send(flaky, message(), { signal: AbortSignal.timeout(5000), done: partial, fetch: fetchOnce }),
  ).rejects.toBeInstanceOf(SendError)
  expect(partial).toEqual(new Set(["@ops"]))
  await send(flaky, message(), { signal: AbortSignal.timeout(5000), done: partial, fetch: fetchOnce })
  const chats = r.received
    .filter((x) => x.kind === "telegram")
    .slice(before)
    .map((x) => x.body.chat_id)
  expect(chats).toEqual(["@ops", "-1009"])
})

test("Telegram: an unknown chat is a refusal in Telegram's words, never with the token", async () => {
  const err = await go(urls.telegram.replace("@ops", "@nochat")).catch((e) => e)
  expect(err).toBeInstanceOf(SendError)
  expect(err.permanent).toBe(true)
  expect(err.message).toContain("Bad Request: chat not found")
  expect(err.message).not.toContain("secretToken")
})

test("429: Retry-After (header), retry_after (Discord's body) and parameters.retry_after (Telegram's) are the wait", async () => {
  r.fail("discord", () =>
    Response.json({ message: "You are being rate limited.", retry_after: 1.5, global: false }, { status: 429 }),
  )
  await expect(go(urls.discord)).rejects.toMatchObject({ permanent: false, retryAfter: 1.5 })
  r.fail("telegram", () =>
    Response.json(
      { ok: false, error_code: 429, description: "Too Many Requests: retry after 7", parameters: { retry_after: 7 } },
      { status: 429 },
    ),
  )
  await expect(go(urls.telegram)).rejects.toMatchObject({ permanent: false, retryAfter: 7 })
  r.fail("gotify", () => new Response("slow down", { status: 429, headers: { "retry-after": "3" } }))
  await expect(go(urls.gotify)).rejects.toMatchObject({ retryAfter: 3 })
  r.fail("slack", () => new Response("server_error", { status: 503 }))
  await expect(go(urls.slack)).rejects.toMatchObject({ permanent: false })
  await Bun.sleep(50)
})

test("Gotify: POST /message with the token as X-Gotify-Key, never in the URL; a wrong token is refused", async () => {
  await go(urls.gotify)
  expect(last("gotify").body).toMatchObject({ title: "container web-1 exited with code 3", priority: 8 })
  expect(last("gotify").path).toBe("/message")
  const err = await go(urls.gotify.replace(TOKENS.gotify, "wrongToken")).catch((e) => e)
  expect(err).toMatchObject({ permanent: true })
  expect(err.message).toContain("you need to provide a valid access token")
})

test("Pushover: the form with token, user, device and priority; a bad user key is refused", async () => {
  await go(urls.pushover)
  expect(last("pushover").body).toMatchObject({
    token: TOKENS.pushover.token,
    user: TOKENS.pushover.user,
    device: "phone",
    priority: "1",
    title: "container web-1 exited with code 3",
  })
  const err = await go(urls.pushover.replace(TOKENS.pushover.user, "nobodyKey")).catch((e) => e)
  expect(err.permanent).toBe(true)
  expect(err.message).toContain("user identifier is not a valid user")
})

test("Matrix: a password login, the alias resolved, and a send whose transaction id makes a retry the same event", async () => {
  const m = message({ id: "txn-1" })
  await go(urls.matrix, m)
  await go(urls.matrix, m)
  expect(r.received.filter((x) => x.kind === "matrix-login")).toHaveLength(1)
  const posted = r.received.filter((x) => x.kind === "matrix")
  expect(posted).toHaveLength(1)
  expect(posted[0]!.body).toEqual({
    msgtype: "m.text",
    body: "container web-1 exited with code 3\nweb-1 (stack shop) exited with code 3",
  })
  const err = await go(urls.matrix.replace("%23ops", "!elsewhere")).catch((e) => e)
  expect(err.message).toContain("M_FORBIDDEN")
})

test("ntfy and the JSON webhook", async () => {
  await go(urls.ntfy)
  expect(last("ntfy").headers.title).toBe("container web-1 exited with code 3")
  expect(last("ntfy").headers.priority).toBe("high")
  await go(`generic+http://${new URL(r.url).host}/hook/x?$env=prod&@X-Key=k3y&messagekey=text`)
  expect(last("webhook").body).toMatchObject({
    title: "container web-1 exited with code 3",
    text: "web-1 (stack shop) exited with code 3",
    env: "prod",
    severity: "critical",
  })
  expect(last("webhook").headers["x-key"]).toBe("k3y")
})

test("no answer in time is worth a retry; an unreachable service too", async () => {
  r.delay("webhook", 2000)
  const slow = send(parseChannelUrl(urls.webhook), message(), { signal: AbortSignal.timeout(100), done: new Set() })
  await expect(slow).rejects.toMatchObject({ permanent: false, message: "no answer in time" })
  await Bun.sleep(150)
  r.delay("webhook", 0)
  await expect(go("http://127.0.0.1:1/hook")).rejects.toMatchObject({ permanent: false })
  await Bun.sleep(50)
})

test("no stand-in saw a credential in a path or body it should not have, and no error carried one", async () => {
  const errors: string[] = []
  for (const url of Object.values(urls)) {
    const bad = url.replace(/(Secret|secret|Passw0rd)/g, "Wrong")
    errors.push(
      await go(bad).then(
        () => "",
        (e) => String(e.message),
      ),
    )
  }
  for (const e of errors) for (const s of ALL_SECRETS) expect(e).not.toContain(s)
})
