import { afterEach, expect, test } from "bun:test"
import { EventBus } from "#lib/engine/events.ts"
import { Notifier, parseTarget } from "#lib/updates/notify.ts"

let servers: ReturnType<typeof Bun.serve>[] = []
afterEach(() => {
  for (const s of servers) s.stop(true)
  servers = []
})
const serve = (fetch: (req: Request) => Response | Promise<Response>) => {
  const s = Bun.serve({ hostname: "127.0.0.1", port: 0, idleTimeout: 0, fetch })
  servers.push(s)
  return `127.0.0.1:${s.port}`
}

test("addresses: http(s) is a webhook, ntfy+http(s) and ntfy:// ntfy's publish form; anything else is refused", () => {
  expect(parseTarget("https://hooks.example/abc?token=x")).toEqual({
    kind: "webhook",
    url: "https://hooks.example/abc?token=x",
    origin: "https://hooks.example",
  })
  expect(parseTarget("ntfy+http://10.0.0.1:8080/alerts")).toMatchObject({
    kind: "ntfy",
    url: "http://10.0.0.1:8080/alerts",
  })
  expect(parseTarget("ntfy://ntfy.sh/topic")).toMatchObject({ kind: "ntfy", url: "https://ntfy.sh/topic" })
  expect(() => parseTarget("ftp://x/y")).toThrow()
  expect(() => parseTarget("nonsense")).toThrow()
})

test("the JSON body to a webhook and the plain form to ntfy", async () => {
  const got: { hook?: any; ntfy?: { headers: Headers; text: string } } = {}
  const hook = serve(async (req) => ((got.hook = await req.json()), new Response("ok")))
  const topic = serve(
    async (req) => ((got.ntfy = { headers: req.headers, text: await req.text() }), new Response("{}")),
  )
  const n = new Notifier([`http://${hook}/h`, `ntfy+http://${topic}/t`], {
    serverId: "srv1",
    now: () => Date.parse("2026-01-02T03:04:05Z"),
  })
  n.notify({
    event: "rolled_back",
    stack: "shop",
    verdict: "rolled_back",
    reason: "service web: unhealthy: down",
    images: [{ service: "web", ref: "r:1", from: "r@sha256:a", to: "r@sha256:b" }],
    message: "update of shop: rolled_back",
  })
  await n.idle()
  expect(got.hook).toEqual({
    event: "rolled_back",
    time: "2026-01-02T03:04:05.000Z",
    server: "srv1",
    stack: "shop",
    verdict: "rolled_back",
    reason: "service web: unhealthy: down",
    images: [{ service: "web", ref: "r:1", from: "r@sha256:a", to: "r@sha256:b" }],
    message: "update of shop: rolled_back",
  })
  expect(got.ntfy!.text).toBe("update of shop: rolled_back")
  expect(got.ntfy!.headers.get("title")).toBe("Harbormaster: rolled back (shop)")
  expect(got.ntfy!.headers.get("tags")).toBe("rewind")
  expect(n.counts).toEqual({ sent: 2, failed: 0 })
})

test("retried with backoff; given up: an event naming only the origin and a count, never an exception", async () => {
  let tries = 0
  const flaky = serve(() => (++tries < 3 ? new Response("no", { status: 503 }) : new Response("ok")))
  const events = new EventBus()
  const dead = new Notifier([`http://${flaky}/x`, "http://127.0.0.1:1/secret-token-path"], {
    serverId: "s",
    events,
    backoff: [10, 20, 40],
  })
  dead.notify({ event: "updated", stack: "shop", message: "m" })
  await dead.idle()
  expect(tries).toBe(3)
  expect(dead.counts).toEqual({ sent: 1, failed: 1 })
  const failed = events.history().find((e) => e.type === "notify")!
  expect(failed).toMatchObject({ action: "failed", name: "shop", level: "error" })
  expect(failed.message).toContain("http://127.0.0.1:1")
  expect(failed.message).not.toContain("secret-token-path")
})

test("notify returns at once, whatever the endpoint does", async () => {
  let arrived = 0
  const stuck = serve(() => (arrived++, new Promise<Response>(() => {})))
  const n = new Notifier([`http://${stuck}/`], { serverId: "s", timeoutMs: 200, backoff: [10] })
  // returned without a promise to wait on, before the endpoint even saw the request
  expect(n.notify({ event: "rollback_failed", stack: "x", message: "m" })).toBeUndefined()
  expect(arrived).toBe(0)
  await n.idle()
  expect(arrived).toBe(2)
  expect(n.counts.failed).toBe(1)
})
