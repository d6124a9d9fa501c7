// A cluster of two real servers, both with sign-in on: a member joins (the control plane's
// registration needs no user, the cluster token in its body), and an admin's copy of a stack with a
// volume reaches the member through the cluster token, which the member takes as the cluster's.
// Then the control plane's gateway: JSON, a change, an event stream and the container's shell reach
// the member as the admin signed in on the control plane (its proof, never a credential), and the
// member's audit names them via the control plane; directly, the member still wants a credential.
// A member joined outbound (behind NAT) with sign-in on gets the same calls through its connection.
import { afterAll, beforeAll, expect, test } from "bun:test"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Engine } from "#lib/engine/client.ts"
import { signProof } from "#lib/cluster/proof.ts"
import { cleanup, engineHost, realEngine, TEST_LABEL, testImage } from "../support/engine.ts"
import { startService, type Service } from "../support/service.ts"
import { sseMessages } from "../support/sse.ts"
import { terminal } from "../support/terminal.ts"

const root = join(import.meta.dir, "../..")
const PASSWORD = "a long enough password"
const NAME = "hm-auth-copy"
const compose = `services:
  app:
    image: ${testImage()}
    command: ["sh", "-c", "trap 'exit 0' TERM; while true; do sleep 0.2; done"]
    volumes: [data:/data]
    labels: { ${TEST_LABEL}: "1" }
volumes:
  data:
    labels: { ${TEST_LABEL}: "1" }
`

const engines: Engine[] = []
const services: Service[] = []
const dirs: string[] = []
const cookies: string[] = []
let token = ""

async function call(i: number, method: string, path: string, body?: unknown) {
  const svc = services[i]!
  const res = await fetch(`${svc.url}${path}`, {
    method,
    headers: { cookie: cookies[i]!, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  return { status: res.status, body: (await res.json()) as any }
}

/** A service with local sign-in on engine `which`, its admin root signed in; its index in `services`. */
async function signedIn(which: "a" | "b"): Promise<number> {
  const dataDir = mkdtempSync(join(tmpdir(), `hm-auth-${which}-`))
  dirs.push(dataDir)
  const add = Bun.spawnSync(["bun", join(root, "server.ts"), "user", "add", "root", "--role", "admin"], {
    env: { ...process.env, SVC_DATA: dataDir },
    stdin: new TextEncoder().encode(PASSWORD),
  })
  expect(add.exitCode).toBe(0)
  const svc = await startService(
    {
      DOCKER_HOST: engineHost(which),
      SVC_AUTH: "local",
      SVC_TRANSFER_IMAGE: testImage(),
      SVC_PROBE_TIMEOUT_MS: "3000",
    },
    { dataDir },
  )
  services.push(svc)
  const login = await fetch(`${svc.url}/api/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ user: "root", password: PASSWORD }),
  })
  cookies.push(login.headers.get("set-cookie")!.split(";")[0]!)
  return services.length - 1
}

beforeAll(async () => {
  for (const which of ["a", "b"] as const) {
    const engine = realEngine(which)
    engines.push(engine)
    await cleanup(engine)
    await signedIn(which)
  }
})
afterAll(async () => {
  for (const i of [0, 1]) await call(i, "DELETE", `/api/stacks/${NAME}?volumes=true`).catch(() => {})
  for (const svc of services) await svc.stop()
  for (const engine of engines) await cleanup(engine)
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

test("a member joins a control plane with sign-in on, and an admin's copy with a volume reaches it", async () => {
  token = (await call(0, "POST", "/api/cluster/token")).body.token
  const joined = await call(1, "POST", "/api/cluster/join", {
    control_plane_url: services[0]!.url,
    token,
    name: "b",
    advertise: services[1]!.url,
  })
  expect(joined.status).toBe(200)
  expect((await call(0, "GET", "/api/nodes/b")).body.status).toBe("online")
  expect((await call(0, "POST", "/api/stacks", { name: NAME, content: compose })).status).toBe(201)
  const copied = await call(0, "POST", `/api/stacks/${NAME}/copy`, { to: "b", dry_run: false })
  expect(copied.status).toBe(201)
  expect((await call(1, "GET", `/api/stacks/${NAME}`)).body).toMatchObject({ name: NAME, managed: true })
  const { entries } = (await call(1, "GET", "/api/audit?user=cluster")).body
  expect(entries.map((e: any) => `${e.method} ${e.route} ${e.status}`)).toContain("POST /api/stacks/import 201")
  // Without a session, a member's API is closed to the control plane's callers all the same.
  expect((await fetch(`${services[1]!.url}/api/stacks`)).status).toBe(401)
})

test("through the gateway the member answers the control plane's signed-in admin: JSON, a change, events, the shell; its audit says via the control plane", async () => {
  const cpId = (await call(0, "GET", "/api/cluster")).body.server_id as string
  const stacks = await call(0, "GET", "/api/nodes/b/proxy/api/stacks")
  expect(stacks.status).toBe(200)
  expect(stacks.body.map((s: { name: string }) => s.name)).toContain(NAME)
  const events = await fetch(`${services[0]!.url}/api/nodes/b/proxy/api/events`, { headers: { cookie: cookies[0]! } })
  expect([events.status, events.headers.get("content-type")]).toEqual([200, "text/event-stream"])
  const messages = sseMessages(events)
  const next = messages.next()
  // A route the control plane's copy calls with the cluster token: a signed-in admin may call it too
  expect((await call(0, "POST", `/api/nodes/b/proxy/api/stacks/${NAME}/up`)).status).toBe(200)
  let event = (await next).value
  while (!(event.type === "container" && event.action === "start")) event = (await messages.next()).value
  expect(event.name).toContain(NAME)
  await messages.return(undefined)

  const containers = (await call(0, "GET", "/api/nodes/b/proxy/api/containers")).body as { id: string; name: string }[]
  const id = containers.find((c) => c.name.includes(NAME))!.id
  const shell = await terminal(
    `${services[0]!.url.replace("http:", "ws:")}/api/nodes/b/proxy/api/containers/${id}/shell`,
    { headers: { cookie: cookies[0]!, origin: services[0]!.url } },
  )
  await shell.prompt()
  shell.type("echo via-$((40+2))\n")
  await shell.waitFor(/via-42/)
  shell.type("exit\n")
  expect((await shell.closed).code).toBe(1000)

  const audited = async () =>
    ((await call(1, "GET", "/api/audit?user=root")).body.entries as any[])
      .filter((e) => e.via === cpId)
      .map((e) => `${e.action ?? e.method} ${e.route} ${e.status}`)
  for (let i = 0; i < 100 && !(await audited()).some((e) => e.startsWith("ws.close")); i++) await Bun.sleep(20)
  expect(await audited()).toEqual(
    expect.arrayContaining([
      "POST /api/stacks/:name/up 200",
      "ws.open /api/containers/:id/shell 101",
      "ws.close /api/containers/:id/shell 101",
    ]),
  )

  // Directly: no credential, a proof made for another path, one replayed
  const direct = (path: string, proof?: string) =>
    fetch(`${services[1]!.url}${path}`, { headers: proof ? { "x-hm-proof": proof } : {} })
  expect((await direct("/api/stacks")).status).toBe(401)
  const node = (await call(1, "GET", "/api/cluster")).body.server_id as string
  const proof = (path: string) =>
    signProof(token, { method: "GET", path, who: { controlPlane: cpId, node, user: "root", role: "admin" } })
  expect((await direct("/api/stacks", proof("/api/volumes"))).status).toBe(401)
  const once = proof("/api/stacks")
  expect((await direct("/api/stacks", once)).status).toBe(200)
  const replayed = await direct("/api/stacks", once)
  expect(replayed.status).toBe(401)
  expect((await replayed.json()).error.message).toBe("the gateway's proof is refused: it was used already")
})

test("a session signed out on the control plane ends what it opened through the gateway: the shell closes on both servers, the event stream ends", async () => {
  const cpId = (await call(0, "GET", "/api/cluster")).body.server_id as string
  const login = await fetch(`${services[0]!.url}/api/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ user: "root", password: PASSWORD }),
  })
  const cookie = login.headers.get("set-cookie")!.split(";")[0]!
  const containers = (await call(0, "GET", "/api/nodes/b/proxy/api/containers")).body as { id: string; name: string }[]
  const id = containers.find((c) => c.name.includes(NAME))!.id
  const shell = await terminal(
    `${services[0]!.url.replace("http:", "ws:")}/api/nodes/b/proxy/api/containers/${id}/shell`,
    { headers: { cookie, origin: services[0]!.url } },
  )
  await shell.prompt()
  const events = await fetch(`${services[0]!.url}/api/nodes/b/proxy/api/events`, { headers: { cookie } })
  expect(events.status).toBe(200)
  const reader = events.body!.getReader()
  const ended = (async () => {
    for (;;) if ((await reader.read()).done) return "ended"
  })()
  const closes = async () =>
    ((await call(1, "GET", "/api/audit?user=root&action=ws.close")).body.entries as any[]).filter((e) => e.via === cpId)
      .length
  const before = await closes()
  const out = await fetch(`${services[0]!.url}/api/auth/logout`, { method: "POST", headers: { cookie } })
  expect(out.status).toBe(200)
  const closed = await Promise.race([shell.closed, Bun.sleep(10_000).then(() => "still open" as const)])
  expect(closed === "still open" ? closed : [closed.code, closed.reason]).toEqual([1008, "signed out"])
  expect(await Promise.race([ended, Bun.sleep(10_000).then(() => "still open")])).toBe("ended")
  // The member's end of the shell closed too.
  for (let i = 0; i < 100 && (await closes()) === before; i++) await Bun.sleep(50)
  expect(await closes()).toBe(before + 1)
})

test("a member joined outbound with sign-in on: the gateway's calls through its connection, the shell included, come as the control plane's admin", async () => {
  const i = await signedIn("b")
  const cpId = (await call(0, "GET", "/api/cluster")).body.server_id as string
  const joined = await call(i, "POST", "/api/cluster/join", {
    control_plane_url: services[0]!.url,
    token,
    name: "c",
    connect: "outbound",
  })
  expect([joined.status, joined.body.node.status]).toEqual([200, "online"])
  const containers = await call(0, "GET", "/api/nodes/c/proxy/api/containers")
  expect(containers.status).toBe(200)
  const id = (containers.body as { id: string; name: string }[]).find((c) => c.name.includes(NAME))!.id
  const shell = await terminal(
    `${services[0]!.url.replace("http:", "ws:")}/api/nodes/c/proxy/api/containers/${id}/shell`,
    { headers: { cookie: cookies[0]!, origin: services[0]!.url } },
  )
  await shell.prompt()
  shell.type("echo outbound-$((40+2))\n")
  await shell.waitFor(/outbound-42/)
  shell.type("exit\n")
  expect((await shell.closed).code).toBe(1000)
  const audited = async () =>
    ((await call(i, "GET", "/api/audit?user=root")).body.entries as any[])
      .filter((e) => e.via === cpId)
      .map((e) => `${e.action} ${e.route} ${e.source} ${e.role}`)
  for (let n = 0; n < 100 && !(await audited()).some((e) => e.startsWith("ws.close")); n++) await Bun.sleep(20)
  expect(await audited()).toEqual(
    expect.arrayContaining([
      "ws.open /api/containers/:id/shell cluster admin",
      "ws.close /api/containers/:id/shell cluster admin",
    ]),
  )
  expect((await fetch(`${services[i]!.url}/api/containers`)).status).toBe(401)
})
