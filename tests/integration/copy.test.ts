// Copy and move between two real servers, each a service process on its own private engine (the
// second engine in its own network namespace), joined as a cluster: volume data checked file by
// file, every blocker refused with nothing written, a failure after the volumes were written undone,
// a dry run changing nothing, a copy on one server under a new name, and a copy back from the node;
// a fixed container_name refused in the plan, a build from the stack's own files carried; a port a
// stopped stack would publish again once started blocks a copy beside it.
import { afterAll, beforeAll, expect, test } from "bun:test"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { STACK_LABEL } from "#lib/engine/containers.ts"
import type { Engine } from "#lib/engine/client.ts"
import { TarScanner } from "#lib/volumes/tar-scan.ts"
import { TRANSFER_LABEL } from "#lib/volumes/transfer.ts"
import { cleanup, engineHost, realEngine, TEST_LABEL, testImage } from "../support/engine.ts"
import { freePort, startService, type Service } from "../support/service.ts"
import { makeTar } from "../support/tar.ts"

let engA: Engine
let engB: Engine
let a: Service
let b: Service
let port: number
let bindDir: string

const IDLE = "trap 'exit 0' TERM; while true; do sleep 0.2; done"
const EXT = "hm-copy-ext"
const SHARED = "hm-copy-shared"
const STACKS = [
  "hm-web",
  "hm-web2",
  "hm-solo",
  "hm-solo-copy",
  "hm-solo-back",
  "hm-named",
  "hm-named-2",
  "hm-parked",
  "hm-parked-2",
]
const VOLUMES = [
  "hm-web_data",
  "hm-web_never",
  "hm-web2_data",
  SHARED,
  EXT,
  "hm-solo_data",
  "hm-solo-copy_data",
  "hm-solo-back_data",
  "hm-unsafe",
]

const web = () => `services:
  app:
    image: ${testImage()}
    command: ["sh", "-c", "${IDLE}"]
    ports: ["${port}:80"]
    volumes:
      - data:/data
      - shared:/shared
      - ext:/ext
      - ${bindDir}:/conf:ro
      - /cache
    labels: { ${TEST_LABEL}: "1" }
volumes:
  data:
    labels: { ${TEST_LABEL}: "1" }
  shared:
    name: \${SHARED_NAME}
    labels: { ${TEST_LABEL}: "1" }
  ext:
    external: true
    name: ${EXT}
  never:
`
const solo = `services:
  app:
    image: ${testImage()}
    command: ["sh", "-c", "${IDLE}"]
    volumes: [data:/data]
    labels: { ${TEST_LABEL}: "1" }
volumes:
  data:
    labels: { ${TEST_LABEL}: "1" }
`

async function call(svc: Service, method: string, path: string, body?: unknown) {
  const res = await fetch(`${svc.url}${path}`, {
    method,
    ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
  })
  return { status: res.status, body: (await res.json()) as any }
}
const copy = (body: Record<string, unknown>, name = "hm-web", via = a) =>
  call(via, "POST", `/api/stacks/${name}/copy`, body)

/** Runs `script` in a labelled throwaway container with `volume` at /v; its output once it exited 0. */
async function run(engine: Engine, volume: string, script: string): Promise<string> {
  const { Id } = await engine.createContainer({
    Image: testImage(),
    Cmd: ["sh", "-c", script],
    Labels: { [TEST_LABEL]: "1" },
    HostConfig: { NetworkMode: "none", Mounts: [{ Type: "volume", Source: volume, Target: "/v" }] },
  })
  try {
    await engine.containerAction(Id, "start")
    const { StatusCode } = await engine.waitContainer(Id)
    const lines: string[] = []
    for await (const l of engine.logs(Id, { follow: false, tail: "all" })) lines.push(l.line)
    if (StatusCode !== 0) throw new Error(`${script} exited ${StatusCode}: ${lines.join("\n")}`)
    return lines.join("\n")
  } finally {
    await engine.removeContainer(Id, { force: true })
  }
}

/** Every file's checksum, every entry's mode, owner and type, every link's target. */
const manifest = (engine: Engine, volume: string) =>
  run(
    engine,
    volume,
    `cd /v && find . -type f | sort | xargs -r sha256sum && find . | sort | xargs stat -c "%a %u %g %F %n" && find . -type l | sort | xargs -r readlink`,
  )

/** What a copy could have changed on a server. */
async function snapshot(engine: Engine, svc: Service) {
  const containers = (await engine.listContainers({ all: true })).map((c) => `${c.Names[0]} ${c.State}`).sort()
  const volumes = (await engine.listVolumes()).map((v) => v.Name).sort()
  const networks = (await engine.listNetworks()).map((n) => n.Name).sort()
  const images = (await engine.listImages()).map((i) => i.Id).sort()
  const stacks = (await call(svc, "GET", "/api/stacks")).body.map((s: { name: string }) => s.name).sort()
  return { containers, volumes, networks, images, stacks }
}

const running = async (engine: Engine, project: string) =>
  (await engine.listContainers({ all: true, filters: { label: [`${STACK_LABEL}=${project}`] } })).map((c) => c.State)

async function wipe(engine: Engine, svc: Service) {
  for (const name of STACKS) await call(svc, "DELETE", `/api/stacks/${name}?volumes=true`).catch(() => {})
  for (const c of await engine.listContainers({ all: true }))
    if (STACKS.includes(c.Labels[STACK_LABEL] ?? "")) await engine.removeContainer(c.Id, { force: true })
  for (const v of VOLUMES) await engine.removeVolume(v, { force: true }).catch(() => {})
  await cleanup(engine)
}

beforeAll(async () => {
  engA = realEngine("a")
  engB = realEngine("b")
  await Promise.all([cleanup(engA), cleanup(engB)])
  port = await freePort()
  bindDir = mkdtempSync(join(tmpdir(), "hm-copy-bind-"))
  writeFileSync(join(bindDir, "app.conf"), "bind content\n")
  const env = (which: "a" | "b") => ({
    DOCKER_HOST: engineHost(which),
    SVC_TRANSFER_IMAGE: testImage(),
    SVC_PROBE_TIMEOUT_MS: "3000",
    SVC_BIND_ROOTS: bindDir,
  })
  ;[a, b] = await Promise.all([startService(env("a")), startService(env("b"))])
  const token = (await call(a, "POST", "/api/cluster/token")).body.token
  const joined = await call(b, "POST", "/api/cluster/join", {
    control_plane_url: a.url,
    token,
    name: "b",
    advertise: b.url,
  })
  expect(joined.status).toBe(200)

  await engA.createVolume(EXT, { [TEST_LABEL]: "1" })
  await run(engA, EXT, "echo from-a > /v/marker")
  const deployed = await call(a, "POST", "/api/stacks", {
    name: "hm-web",
    content: web(),
    env: [{ key: "SHARED_NAME", value: SHARED, secret: true }],
  })
  expect(deployed.status).toBe(201)
  // Compose v1 creates every declared volume, v2 only those a service mounts: either way this one
  // stands for a volume the engine never created.
  await engA.removeVolume("hm-web_never").catch((err) => expect(err.kind).toBe("not_found"))
  expect((await call(a, "POST", "/api/stacks", { name: "hm-solo", content: solo })).status).toBe(201)
  // 200 MiB in 40 files over 5 folders, a symlink, a file of another owner with its own mode.
  await run(
    engA,
    "hm-web_data",
    `for i in $(seq 1 40); do d=/v/dir$((i % 5)); mkdir -p $d; head -c 5242880 /dev/urandom > $d/f$i; done
    ln -s dir1/f1 /v/link && echo secret > /v/owned && chown 1000:1000 /v/owned && chmod 600 /v/owned`,
  )
  await run(engA, SHARED, "echo shared > /v/s && mkdir -p /v/empty-dir")
  await run(engA, "hm-solo_data", "head -c 1048576 /dev/urandom > /v/solo.bin")
}, 120_000)

afterAll(async () => {
  await Promise.all([wipe(engA, a), wipe(engB, b)])
  await Promise.all([a.stop(), b.stop()])
  rmSync(bindDir, { recursive: true, force: true })
}, 120_000)

test("a dry run returns the plan and changes nothing on either server", async () => {
  const before = [await snapshot(engA, a), await snapshot(engB, b)]
  const res = await copy({ to: "b", dry_run: true })
  expect(res.status).toBe(200)
  expect(res.body).toMatchObject({ source: "hm-web", target: "hm-web", same_server: false, dry_run: true })
  // In the order compose's model lists them (v1 sorts by key).
  expect(res.body.volumes.map((v: any) => [v.key, v.source, v.target, v.external, v.transfer]).sort()).toEqual([
    ["data", "hm-web_data", "hm-web_data", false, true],
    ["ext", EXT, EXT, true, false],
    ["shared", SHARED, SHARED, false, true],
  ])
  expect(res.body.binds).toEqual([
    expect.objectContaining({ service: "app", source: bindDir, target: "/conf", read_only: true, data: false }),
  ])
  expect(res.body.blockers.map((x: any) => x.code)).toEqual(["anonymous_volumes", "binds"])
  expect(res.body.warnings).toContain(
    `external volume ${EXT} does not exist on the destination; create it there before starting the copy`,
  )
  // Compose v2's model leaves out a declared volume no service mounts; v1 keeps it.
  if (process.env.TEST_COMPOSE === "v2") expect(res.body.warnings.join("\n")).not.toContain("hm-web_never")
  else
    expect(res.body.warnings).toContain(
      "volume never (hm-web_never) was never created on the source; the copy creates it empty",
    )
  expect([await snapshot(engA, a), await snapshot(engB, b)]).toEqual(before)
}, 60_000)

test("blockers refuse the copy and nothing is written", async () => {
  const before = [await snapshot(engA, a), await snapshot(engB, b)]
  const blocked = await copy({ to: "b" })
  expect(blocked.status).toBe(409)
  expect(blocked.body.error.code).toBe("copy_blocked")
  expect(blocked.body.plan.blockers.map((x: any) => x.code)).toEqual(["anonymous_volumes", "binds"])
  const same = await copy({ as: "hm-web2", allow_binds: true, allow_anonymous_volumes: true })
  expect(same.status).toBe(409)
  expect(same.body.plan.blockers.map((x: any) => x.code)).toEqual([
    "port_clash",
    "volume_name_kept",
    "volume_name_kept",
  ])
  expect((await copy({})).body.plan.blockers.map((x: any) => x.code)).toContain("name_taken")
  expect([await snapshot(engA, a), await snapshot(engB, b)]).toEqual(before)
}, 60_000)

test("a failure after the volumes were written (compose refuses to start without the external volume) leaves the destination as it was", async () => {
  const before = [await snapshot(engA, a), await snapshot(engB, b)]
  const res = await copy({ to: "b", start: true, allow_binds: true, allow_anonymous_volumes: true })
  expect(res.status).toBe(502)
  expect(res.body.error.code).toBe("compose_failed")
  expect(res.body.error.message).toContain(EXT)
  expect([await snapshot(engA, a), await snapshot(engB, b)]).toEqual(before)
  const history = (await call(a, "GET", "/api/events/history")).body
  expect(history.filter((e: any) => e.level === "error")).toEqual([])
}, 120_000)

test("a copy to the node carries 200 MiB of files exactly, leaves the external volume alone and starts there", async () => {
  await engB.createVolume(EXT, { [TEST_LABEL]: "1" })
  await run(engB, EXT, "echo from-b > /v/marker")
  const sourceBefore = await manifest(engA, "hm-web_data")
  const res = await copy({ to: "b", start: true, allow_binds: true, allow_anonymous_volumes: true })
  expect(res.status).toBe(201)
  expect(res.body).toMatchObject({ dry_run: false, started: true, blockers: [] })
  expect(await manifest(engB, "hm-web_data")).toBe(sourceBefore)
  expect(sourceBefore.split("\n").filter((l) => / regular file /.test(l))).toHaveLength(41)
  expect(await manifest(engB, SHARED)).toBe(await manifest(engA, SHARED))
  expect(await run(engB, EXT, "cat /v/marker")).toBe("from-b")
  expect(await running(engB, "hm-web")).toEqual(["running"])
  // The stack arrived whole: its secret environment and its version history.
  const exported = await fetch(`${b.url}/api/stacks/hm-web/export`, {
    headers: { authorization: `Bearer ${(await call(a, "GET", "/api/cluster/token")).body.token}` },
  }).then((r) => r.json())
  expect(exported.env).toEqual([{ key: "SHARED_NAME", value: SHARED, secret: true }])
  expect(exported.versions.map((v: any) => v.version)).toEqual([1])
  // The source is untouched and still runs.
  expect(await manifest(engA, "hm-web_data")).toBe(sourceBefore)
  expect(await running(engA, "hm-web")).toEqual(["running"])
  expect(await run(engA, EXT, "cat /v/marker")).toBe("from-a")
}, 300_000)

test("once the copy runs there, a second copy is blocked by its name, its port and its kept volume name", async () => {
  const before = [await snapshot(engA, a), await snapshot(engB, b)]
  const again = await copy({ to: "b", allow_binds: true, allow_anonymous_volumes: true })
  expect(again.body.plan.blockers.map((x: any) => x.code)).toEqual([
    "name_taken",
    "port_clash",
    "volume_exists",
    "volume_exists",
  ])
  const renamed = await copy({ to: "b", as: "hm-web2", allow_binds: true, allow_anonymous_volumes: true })
  expect(renamed.status).toBe(409)
  expect(renamed.body.plan.blockers.map((x: any) => x.code)).toEqual(["port_clash", "volume_exists"])
  expect([await snapshot(engA, a), await snapshot(engB, b)]).toEqual(before)
}, 60_000)

test("a copy on the same server under a new name, and a copy back from the node", async () => {
  const source = await manifest(engA, "hm-solo_data")
  const local = await copy({ as: "hm-solo-copy", start: true }, "hm-solo")
  expect(local.status).toBe(201)
  expect(local.body.volumes.map((v: any) => [v.source, v.target])).toEqual([["hm-solo_data", "hm-solo-copy_data"]])
  expect(await manifest(engA, "hm-solo-copy_data")).toBe(source)
  expect(await running(engA, "hm-solo-copy")).toEqual(["running"])

  expect((await copy({ to: "b" }, "hm-solo")).status).toBe(201)
  expect(await running(engB, "hm-solo")).toEqual([])
  const back = await copy({ from: "b", as: "hm-solo-back" }, "hm-solo")
  expect(back.status).toBe(201)
  expect(await manifest(engA, "hm-solo-back_data")).toBe(source)
  expect((await call(a, "POST", "/api/stacks/hm-solo-back/up")).status).toBe(401)
}, 300_000)

test("a fixed container_name refuses a copy on the same server in its plan; a build from the stack's own files is no warning", async () => {
  const named = `services:
  app:
    image: ${testImage()}
    build: .
    container_name: hm-named-box
    command: ["sh", "-c", "${IDLE}"]
    labels: { ${TEST_LABEL}: "1" }
`
  expect(
    (
      await call(a, "POST", "/api/stacks", {
        name: "hm-named",
        content: named,
        files: { Dockerfile: `FROM ${testImage()}\n` },
      })
    ).status,
  ).toBe(201)
  const before = [await snapshot(engA, a), await snapshot(engB, b)]
  const same = await copy({ as: "hm-named-2", start: true }, "hm-named")
  expect(same.status).toBe(409)
  expect(same.body.plan.blockers).toEqual([
    {
      code: "container_name_taken",
      message: "container_name hm-named-box is the source's own on this server: the copy could not run beside it",
    },
  ])
  expect(same.body.plan.warnings).toEqual([])
  const there = await copy({ to: "b", dry_run: true }, "hm-named")
  expect([there.status, there.body.blockers, there.body.warnings]).toEqual([200, [], []])
  expect([await snapshot(engA, a), await snapshot(engB, b)]).toEqual(before)
}, 120_000)

test("a same-server copy is blocked by the port a stopped stack publishes once started", async () => {
  const parked = await freePort()
  const content = `services:
  app:
    image: ${testImage()}
    command: ["sh", "-c", "${IDLE}"]
    ports: ["${parked}:80"]
    labels: { ${TEST_LABEL}: "1" }
`
  expect((await call(a, "POST", "/api/stacks", { name: "hm-parked", content })).status).toBe(201)
  expect((await call(a, "POST", "/api/stacks/hm-parked/stop")).status).toBe(200)
  expect(await running(engA, "hm-parked")).toEqual(["exited"])
  const before = await snapshot(engA, a)
  const same = await copy({ as: "hm-parked-2", start: true }, "hm-parked")
  expect(same.status).toBe(409)
  expect(same.body.plan.blockers).toEqual([
    { code: "port_clash", message: `port ${parked}/tcp is already published on the destination` },
  ])
  expect(await snapshot(engA, a)).toEqual(before)
}, 120_000)

test("the move routes on the real engine: sizes, tar export, refusals of a full volume and of an unsafe archive", async () => {
  const auth = { authorization: `Bearer ${(await call(a, "GET", "/api/cluster/token")).body.token}` }
  const doc = await fetch(`${a.url}/api/stacks/hm-web/export?sizes=true`, { headers: auth }).then((r) => r.json())
  const size = Object.fromEntries(doc.mounts.volumes.map((v: any) => [v.key, v.size]))
  expect(size.data).toBeGreaterThanOrEqual(200 * 1024 * 1024)
  expect(size.shared).toBeGreaterThan(0)
  expect(size.never).toBe(process.env.TEST_COMPOSE === "v2" ? undefined : null)

  const names: string[] = []
  const scanner = new TarScanner((e) => names.push(e.name))
  const res = await fetch(`${a.url}/api/volumes/hm-solo_data/export`, { headers: auth })
  expect(res.headers.get("content-type")).toBe("application/x-tar")
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) await scanner.push(chunk)
  expect(names).toEqual(["./", "./solo.bin"])

  const tar = { ...auth, "content-type": "application/x-tar" }
  const full = await fetch(`${b.url}/api/volumes/hm-web_data/import`, {
    method: "POST",
    headers: tar,
    body: await makeTar([{ name: "x", content: "y" }]),
  })
  expect(full.status).toBe(409)
  const unsafe = await fetch(`${b.url}/api/volumes/hm-unsafe/import`, {
    method: "POST",
    headers: tar,
    body: await makeTar([
      { name: "ok", content: "1" },
      { name: "../escape", content: "2" },
    ]),
  })
  expect(unsafe.status).toBe(400)
  expect((await unsafe.json()).error).toEqual({
    code: "unsafe_archive",
    message: 'the archive entry "../escape" points outside the volume',
  })
  expect((await engB.listVolumes()).map((v) => v.Name)).not.toContain("hm-unsafe")
  for (const engine of [engA, engB])
    expect(await engine.listContainers({ all: true, filters: { label: [TRANSFER_LABEL] } })).toEqual([])
}, 120_000)
