// Containers started as `docker run` starts them (through the engine API) adopted into a stack,
// against the real private engine and the real compose CLI, through the real service process.
import { afterAll, beforeAll, expect, test } from "bun:test"
import * as v from "valibot"
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { parseDockerHost, type Engine } from "#lib/engine/client.ts"
import { SERVICE_LABEL, STACK_LABEL } from "#lib/engine/containers.ts"
import { cleanup, engineHost, realEngine, runContainer, TEST_LABEL, testImage } from "../support/engine.ts"
import { netnsA } from "../support/netns.ts"
import { startService, type Service } from "../support/service.ts"
import { makeTar } from "../support/tar.ts"
import adoptRoute from "../../handlers/api/containers/adopt.post.ts"

let engine: Engine
let svc: Service
let bindDir: string
const STACK = "hm-adopted"
const VOLUME = "hm-adopt-data"
const NETWORK = "hm-adopt-net"
const SECRET = "adopt-s3cret-value"
const PORT = 20000 + (process.pid % 20000)

beforeAll(async () => {
  engine = realEngine()
  await cleanup(engine)
  bindDir = mkdtempSync(join(tmpdir(), "hm-adopt-bind-"))
  svc = await startService({ DOCKER_HOST: engineHost(), SVC_BIND_ROOTS: bindDir })
})
afterAll(async () => {
  await send("DELETE", `/stacks/${STACK}`).catch(() => {})
  const out = await svc
    .stop()
    .then(
      async () =>
        `${await new Response(svc.proc.stdout as ReadableStream).text()}${await new Response(svc.proc.stderr as ReadableStream).text()}`,
    )
  expect(out).not.toContain(SECRET)
  await cleanup(engine)
  await engine.removeNetwork(NETWORK).catch(() => {})
  rmSync(bindDir, { recursive: true, force: true })
})

const send = (method: string, path: string, body?: unknown) =>
  fetch(`${svc.url}/api${path}`, {
    method,
    ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
  })
const adopt = (body: unknown) => send("POST", "/containers/adopt", body)

/** What the published port answers, asked from inside the engine's network namespace. */
async function fromPort(path: string): Promise<string> {
  const proc = Bun.spawn(
    ["ip", "netns", "exec", netnsA(), "busybox", "wget", "-qO-", `http://127.0.0.1:${PORT}${path}`],
    { stdout: "pipe", stderr: "pipe" },
  )
  const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()])
  if ((await proc.exited) !== 0) throw new Error(`wget ${path}: ${err}`)
  return out
}

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (await check().catch(() => false)) return
    await Bun.sleep(100)
  }
  throw new Error(`timed out waiting for ${what}`)
}

const state = async (id: string) => (await engine.inspectContainer(id)).State
const stackContainers = () => engine.listContainers({ all: true, filters: { label: [`${STACK_LABEL}=${STACK}`] } })
const stackWritten = () => existsSync(join(svc.dataDir, "stacks", STACK))

/** `docker network create`: the engine client has no call for it, so the test asks the engine's API itself. */
async function createNetwork(name: string): Promise<void> {
  const target = parseDockerHost(engineHost())
  const res = await fetch(`${target.base}/networks/create`, {
    method: "POST",
    unix: target.unix,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ Name: name, Labels: { [TEST_LABEL]: "1" } }),
  } as RequestInit)
  if (!res.ok) throw new Error(`network create: ${res.status} ${await res.text()}`)
}

/** `docker run -d --name hm-web --network hm-adopt-net --network-alias www -p PORT:80 -v hm-adopt-data:/srv/data -v BIND:/srv/bind:ro -e ... --health-cmd ... --restart unless-stopped --init IMAGE httpd ...` */
async function startWeb(): Promise<string> {
  await createNetwork(NETWORK)
  await engine.createVolume(VOLUME, { [TEST_LABEL]: "1" })
  const writer = await runContainer(engine, "hm-adopt-writer", "echo kept in the volume > /srv/data/kept.txt", {
    HostConfig: { Binds: [`${VOLUME}:/srv/data`] },
  })
  await engine.waitContainer(writer)
  await engine.removeContainer(writer)
  writeFileSync(join(bindDir, "index.html"), "kept in the bind\n")
  const { Id } = await engine.createContainer(
    {
      Image: testImage(),
      Cmd: ["httpd", "-f", "-p", "80", "-h", "/srv"],
      Env: ["GREETING=hello $world", `API_TOKEN=${SECRET}`],
      Labels: { [TEST_LABEL]: "1", app: "web" },
      ExposedPorts: { "80/tcp": {} },
      Healthcheck: {
        Test: ["CMD-SHELL", "wget -qO- http://127.0.0.1/bind/index.html || exit 1"],
        Interval: 1e9,
        Timeout: 1e9,
        Retries: 3,
      },
      HostConfig: {
        PortBindings: { "80/tcp": [{ HostPort: String(PORT) }] },
        Binds: [`${VOLUME}:/srv/data`, `${bindDir}:/srv/bind:ro`],
        RestartPolicy: { Name: "unless-stopped" },
        // --init: httpd as PID 1 would ignore the SIGTERM of a stop and wait out its 10 s.
        Init: true,
        NetworkMode: NETWORK,
      },
      NetworkingConfig: { EndpointsConfig: { [NETWORK]: { Aliases: ["www"] } } },
    },
    "hm-web",
  )
  await engine.containerAction(Id, "start")
  await until(async () => (await fromPort("/bind/index.html")) === "kept in the bind\n", "the port to answer")
  return Id
}

let web: string

test("dry_run answers the generated file, checked by compose, and writes nothing", async () => {
  web = await startWeb()
  const res = await adopt({ containers: ["hm-web"], stack: STACK, dry_run: true })
  expect(res.status).toBe(200)
  const plan = await res.json()
  v.parse(adoptRoute.response[200], plan)
  expect(plan).toMatchObject({
    name: STACK,
    dry_run: true,
    services: [{ service: "hm-web", container: web }],
    unexpressed: [],
  })
  expect(plan.env).toEqual([{ key: "API_TOKEN", value: null, secret: true }])
  expect(plan.compose).toContain(`${PORT}:80/tcp`)
  expect(plan.compose).toContain("GREETING: hello $$world")
  expect(JSON.stringify(plan)).not.toContain(SECRET)
  expect(stackWritten()).toBe(false)
  expect(await stackContainers()).toEqual([])
  expect((await state(web)).Running).toBe(true)
})

test("bad input is a 4xx, writes nothing and leaves the containers running", async () => {
  const compose = await runContainer(engine, "hm-in-project", "sleep 1000", {
    Labels: { [TEST_LABEL]: "1", [STACK_LABEL]: "elsewhere" },
  })
  const cases: [unknown, number, string][] = [
    [{ containers: ["hm-no-such-container"], stack: STACK }, 404, "no_container"],
    [{ containers: ["hm-in-project"], stack: STACK }, 409, "in_compose_project"],
    [{ containers: ["hm-web"], stack: "Bad Name" }, 400, "invalid_name"],
    [{ containers: ["hm-web"], stack: "elsewhere" }, 409, "stack_exists"],
    [{ containers: ["hm-web", web], stack: STACK }, 400, "duplicate_container"],
    [{ containers: [], stack: STACK }, 400, "invalid_request"],
  ]
  for (const [body, status, code] of cases) {
    const res = await adopt(body)
    expect({ body, status: res.status, code: (await res.json()).error.code }).toEqual({ body, status, code })
  }
  expect(stackWritten()).toBe(false)
  expect((await state(web)).Running).toBe(true)
  expect((await state(compose)).Running).toBe(true)
  await engine.removeContainer(compose, { force: true })
})

test("a stack whose containers do not keep running is removed and the old container runs again", async () => {
  // The old container runs only because of a file put into it: the stack's own container has none and exits.
  const { Id } = await engine.createContainer(
    {
      Image: testImage(),
      Cmd: ["sh", "-c", "[ -e /flag ] || exit 3; exec sleep 1000"],
      Labels: { [TEST_LABEL]: "1" },
      HostConfig: { Init: true },
    },
    "hm-fragile",
  )
  await engine.putArchive(Id, "/", await makeTar([{ name: "flag" }]))
  await engine.containerAction(Id, "start")
  const res = await adopt({ containers: ["hm-fragile"], stack: "hm-fragile-stack" })
  expect(res.status).toBe(502)
  expect((await res.json()).error.code).toBe("adopt_failed")
  expect(existsSync(join(svc.dataDir, "stacks", "hm-fragile-stack"))).toBe(false)
  expect(await engine.listContainers({ all: true, filters: { label: [`${STACK_LABEL}=hm-fragile-stack`] } })).toEqual(
    [],
  )
  expect((await state(Id)).Running).toBe(true)
  await engine.removeContainer(Id, { force: true })
})

test("a stack that does not come up leaves nothing behind, and the old container runs again", async () => {
  // Another container holds the name compose gives the stack's container (v1: project_service_1, v2: project-service-1): `up` fails.
  const squatter = await runContainer(
    engine,
    process.env.TEST_COMPOSE === "v1" ? "hm-held_hm-old_1" : "hm-held-hm-old-1",
    "exec sleep 1000",
    { HostConfig: { Init: true } },
  )
  const old = await runContainer(engine, "hm-old", "exec sleep 1000", { HostConfig: { Init: true } })
  const res = await adopt({ containers: ["hm-old"], stack: "hm-held" })
  expect(res.status).toBe(502)
  expect((await res.json()).error.message).toContain("already in use")
  expect(existsSync(join(svc.dataDir, "stacks", "hm-held"))).toBe(false)
  expect(await engine.listContainers({ all: true, filters: { label: [`${STACK_LABEL}=hm-held`] } })).toEqual([])
  expect((await state(old)).Running).toBe(true)
  expect((await state(squatter)).Running).toBe(true)
  for (const id of [old, squatter]) await engine.removeContainer(id, { force: true })
})

test("adopted: the stack's container replaces the old one, keeps the volume's and the bind's data and answers on the same port", async () => {
  const res = await adopt({ containers: [web], stack: STACK })
  expect(res.status).toBe(201)
  const adopted = await res.json()
  v.parse(adoptRoute.response[201], adopted)
  expect(adopted).toMatchObject({ name: STACK, dry_run: false, stack: { name: STACK, managed: true } })
  expect(JSON.stringify(adopted)).not.toContain(SECRET)
  await expect(engine.inspectContainer(web)).rejects.toMatchObject({ kind: "not_found" })

  const [c] = await stackContainers()
  expect(c!.Labels[SERVICE_LABEL]).toBe("hm-web")
  expect(c!.State).toBe("running")
  const inspect = await engine.inspectContainer(c!.Id)
  expect(inspect.Config.Env).toEqual(expect.arrayContaining(["GREETING=hello $world", `API_TOKEN=${SECRET}`]))
  expect(inspect.Mounts.find((m) => m.Destination === "/srv/data")).toMatchObject({ Type: "volume", Name: VOLUME })
  expect((inspect.NetworkSettings?.Networks as Record<string, { Aliases: string[] }>)[NETWORK]!.Aliases).toContain(
    "www",
  )
  expect(await fromPort("/bind/index.html")).toBe("kept in the bind\n")
  expect(await fromPort("/data/kept.txt")).toBe("kept in the volume\n")
  const health = async () =>
    ((await engine.inspectContainer(c!.Id)).State as { Health?: { Status: string } }).Health?.Status
  await until(async () => (await health()) === "healthy", "the healthcheck to pass")

  const versions = await (await send("GET", `/stacks/${STACK}/versions`)).json()
  expect(versions.map((v: { version: number; action: string }) => [v.version, v.action])).toEqual([[1, "adopt"]])
  const env = await (await send("GET", `/stacks/${STACK}/env`)).json()
  expect(env).toEqual(expect.arrayContaining([{ key: "API_TOKEN", value: null, secret: true }]))
  const again = await adopt({ containers: [c!.Id], stack: STACK })
  expect([again.status, (await again.json()).error.code]).toEqual([409, "stack_exists"])
})
