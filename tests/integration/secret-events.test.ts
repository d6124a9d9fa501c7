// A stack's secrets in what the engine says about its containers, on a real engine: healthchecks
// that use a secret (interpolated by compose into the command, or read by the shell from the
// container's environment) and a label holding a multi-line one put them into every exec and
// container event. Neither the single-line secret nor any line of the multi-line one may reach the
// event history, the live stream, MCP's event_history, the stack's container records (a command
// holding the secret too) or the message of a compose run that fails printing the multi-line secret
// (whose streamed lines hide its lines of 8 characters or more).
import { afterAll, beforeAll, expect, test } from "bun:test"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { cleanup, engineHost, realEngine, TEST_LABEL, testImage } from "../support/engine.ts"
import { startService, type Service } from "../support/service.ts"
import { sseMessages } from "../support/sse.ts"

const STACK = "hm-secret-events"
const FAILING = "hm-secret-fails"
const PASSWORD = `hm-pw-${crypto.randomUUID()}`
const KEY_LINES = [0, 1, 2].map((i) => `hm-key-${i}-${crypto.randomUUID()}`)
/** A line too short to be hidden on its own: hidden wherever the whole secret is. */
const SHORT = "%Zq9"
const KEY = [KEY_LINES[0], SHORT, ...KEY_LINES.slice(1)].join("\n")
const planted = [PASSWORD, KEY, ...KEY_LINES, SHORT]
const env = [
  { key: "DB_PASSWORD", value: PASSWORD, secret: true },
  { key: "DB_KEY", value: KEY, secret: true },
]

const service = (name: string, check: string) => `  ${name}:
    image: ${testImage()}
    command: ["sh", "-c", "sleep 3600", "\${DB_PASSWORD}"]
    environment:
      DB_PASSWORD: \${DB_PASSWORD}
    labels: { ${TEST_LABEL}: "1", key: "\${DB_KEY}" }
    healthcheck:
      test: ["CMD-SHELL", "${check}"]
      interval: 1s
      timeout: 5s
`
const compose = `services:
${service("interpolated", "echo ${DB_PASSWORD} >/dev/null")}${service("shell", "echo $$DB_PASSWORD >/dev/null")}`

let svc: Service
const live: unknown[] = []
const stream = new AbortController()

const get = async (path: string) => (await fetch(`${svc.url}${path}`)).json()
const history = async (): Promise<{ action: string; attributes?: Record<string, string> }[]> =>
  get("/api/events/history")
const carries = (text: string) => planted.filter((s) => text.includes(s))

beforeAll(async () => {
  await cleanup(realEngine())
  svc = await startService({ DOCKER_HOST: engineHost(), SVC_MCP: "read-only" })
  const res = await fetch(`${svc.url}/api/events`, { signal: stream.signal })
  void (async () => {
    for await (const m of sseMessages(res)) live.push(m)
  })().catch(() => {})
})

afterAll(async () => {
  stream.abort()
  for (const name of [STACK, FAILING])
    await fetch(`${svc.url}/api/stacks/${name}`, { method: "DELETE" }).catch(() => {})
  await svc?.stop()
  await cleanup(realEngine())
}, 60_000)

test("healthchecks and labels carrying secrets: no event in history, stream or MCP shows them", async () => {
  const deployed = await fetch(`${svc.url}/api/stacks`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: STACK, content: compose, env }),
  })
  expect(deployed.status).toBe(201)
  // Several rounds of both healthchecks: each makes exec_create, exec_start and exec_die events.
  const execs = async () =>
    (await history()).filter(
      (e) => e.action.startsWith("exec_") && e.attributes?.["com.docker.compose.project"] === STACK,
    )
  for (let i = 0; i < 300 && (await execs()).length < 12; i++) await Bun.sleep(100)
  const seen = await execs()
  expect(seen.length).toBeGreaterThanOrEqual(12)
  // The plant is real: the interpolated check ran with the secret in its command, the shell one with the variable's name.
  expect(seen.map((e) => e.action)).toEqual(
    expect.arrayContaining([
      "exec_create: /bin/sh -c echo *** >/dev/null",
      "exec_create: /bin/sh -c echo $DB_PASSWORD >/dev/null",
    ]),
  )
  expect(seen.every((e) => e.attributes?.key === "***")).toBe(true)

  const client = new Client({ name: "integration", version: "1" })
  await client.connect(new StreamableHTTPClientTransport(new URL(`${svc.url}/mcp`)))
  const tool = await client.callTool({ name: "event_history", arguments: {} })
  await client.close()
  const mcp = (tool.content as { text: string }[]).map((c) => c.text).join("")
  expect(mcp).toContain("exec_create")

  while (!live.some((e: any) => e.action?.startsWith("exec_die"))) await Bun.sleep(50)
  const texts = { history: JSON.stringify(await history()), stream: JSON.stringify(live), mcp }
  expect(Object.entries(texts).map(([where, text]) => [where, carries(text)])).toEqual([
    ["history", []],
    ["stream", []],
    ["mcp", []],
  ])
}, 120_000)

test("the stack's container records (list, detail, dashboard, stack view) show neither its command's nor its labels' secrets", async () => {
  const containers = (await get("/api/containers")).filter((c: { stack: string | null }) => c.stack === STACK)
  expect(containers.length).toBe(2)
  expect(containers.every((c: { labels: Record<string, string> }) => c.labels.key === "***")).toBe(true)
  const detail = await get(`/api/containers/${containers[0].id}`)
  expect(detail.command).toEqual(["sh", "-c", "sleep 3600", "***"])
  const texts = await Promise.all(
    ["/api/containers", `/api/containers/${detail.id}`, "/api/dashboard", `/api/stacks/${STACK}`, "/api/stacks"].map(
      async (p) => [p, carries(JSON.stringify(await get(p)))],
    ),
  )
  expect(texts.filter(([, found]) => found.length)).toEqual([])
})

test("a deploy whose compose run fails printing the multi-line secret answers 502 with it hidden, and streams none of its long lines", async () => {
  const failing = `services:
  app:
    image: ${testImage()}
    container_name: "hm-\${DB_KEY}"
    command: ["sleep", "3600"]
    labels: { ${TEST_LABEL}: "1" }
`
  const res = await fetch(`${svc.url}/api/stacks`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: FAILING, content: failing, env }),
  })
  const text = await res.text()
  expect([res.status, carries(text)]).toEqual([502, []])
  // The engine refused the name and compose quoted it: the secret was there to hide.
  expect(text).toContain("hm-***")
  const outputs = (await history()).filter((e: any) => e.name === FAILING && e.action.endsWith(".output"))
  expect(outputs.length).toBeGreaterThan(0)
  // A streamed line shows only part of the secret: its lines of 8 characters or more are hidden there.
  expect(carries(JSON.stringify(outputs)).filter((s) => s !== SHORT)).toEqual([])
}, 120_000)
