// Private registries end to end, on the engine flavour of the run: the real distribution registry
// behind TLS from a CA of the test's own, with htpasswd authentication, a second one with token
// authentication from a token service, and a third in front of the first reporting a pull quota and
// answering 429 at none left (tests/support/private-registry.ts). Two services on engines a and b,
// joined as a cluster. A stack whose images are only in the private registries deploys, its update
// check says "update available" after a push and its update pulls it, a scan pulls an image not
// here; a copy to the node that never saw the images gives it the credentials, and the node updates
// with them. Wrong credentials, an expired token, a registry that is down and a 429 are each a clear
// error naming the registry, with nothing deployed. No answer, log, event, export or file of the
// data directories outside their secret stores holds a password.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test"
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs"
import { join } from "node:path"
import { dockerEngine, type Engine } from "#lib/engine/client.ts"
import { STACK_LABEL } from "#lib/engine/containers.ts"
import { MANIFEST_TYPES } from "#lib/registries/client.ts"
import { xRegistryAuth } from "#lib/registries/registries.ts"
import { cleanup, engineHost, TEST_LABEL, testImage } from "../support/engine.ts"
import { privateRegistries, registryHub, type PrivateRegistries } from "../support/private-registry.ts"
import { fixture, standInPath } from "../support/scanners.ts"
import { startService, type Service } from "../support/service.ts"

setDefaultTimeout(180_000)

let hub: Awaited<ReturnType<typeof registryHub>>
let reg: PrivateRegistries
let engA: Engine
let engB: Engine
let a: Service
let b: Service
let scanners: string
let token: string
/** Every answer either service gave, as text: searched for passwords at the end. */
const answers: string[] = []
const STACKS = ["hm-priv", "hm-priv-bad", "hm-priv-tok", "hm-priv-down", "hm-priv-429"]

/** An engine whose pushes carry the registries' credentials, as the service's would. */
function pusher(host: string): Engine {
  return dockerEngine(host, undefined, async (ref) => {
    const user = ref.startsWith(reg.token) ? reg.users.token : reg.users.basic
    return xRegistryAuth({ ...user, serveraddress: ref.split("/")[0]! })
  })
}

/**
 * A new image pushed as `repo:tag` (the test image with a file of its own): pushed from engine a
 * under a tag of its own, which is then copied to `tag` in the registry itself, so that no engine
 * holds the new image under `tag`. Answers its digest in the registry.
 */
async function pushVersion(repo: string, tag: string, version: string): Promise<string> {
  const engine = pusher(engineHost("a"))
  const { Id } = await engine.createContainer({
    Image: testImage(),
    Cmd: ["sh", "-c", `echo ${version} > /version`],
    Labels: { [TEST_LABEL]: "1" },
  })
  await engine.containerAction(Id, "start")
  await engine.waitContainer(Id)
  const build = `build-${version}`
  await engine.commitContainer(Id, repo, build)
  await engine.removeContainer(Id, { force: true })
  await engine.pushImage(`${repo}:${build}`)
  await engine.removeImage(`${repo}:${build}`, { force: true })
  const [host, ...path] = repo.split("/")
  const user = host === reg.token ? reg.users.token : reg.users.basic
  if (host === reg.token) {
    expect(tag).toBe(build)
    return ""
  }
  const headers = { authorization: `Basic ${btoa(`${user.username}:${user.password}`)}` }
  const url = (t: string) => `https://${host}/v2/${path.join("/")}/manifests/${t}`
  const got = await fetch(url(build), {
    headers: { ...headers, accept: MANIFEST_TYPES.join(", ") },
    tls: { ca: reg.ca },
  } as RequestInit)
  const manifest = await got.arrayBuffer()
  const put = await fetch(url(tag), {
    method: "PUT",
    headers: { ...headers, "content-type": got.headers.get("content-type")! },
    body: manifest,
    tls: { ca: reg.ca },
  } as RequestInit)
  expect(put.status).toBe(201)
  return got.headers.get("docker-content-digest")!
}

/** Whether the engine's image `ref` is the one whose digest in the registry is `digest`. */
const isVersion = async (engine: Engine, ref: string, digest: string) =>
  (await engine.inspectImage(ref)).RepoDigests.includes(`${ref.slice(0, ref.lastIndexOf(":"))}@${digest}`)

async function call(svc: Service, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${svc.url}${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  const text = await res.text()
  answers.push(text)
  return { status: res.status, body: text ? JSON.parse(text) : undefined }
}

const IDLE = "trap 'exit 0' TERM; while true; do sleep 0.2; done"
const stackOf = (...images: string[]) =>
  `services:\n${images
    .map(
      (image, i) =>
        `  s${i}:\n    image: ${image}\n    command: ["sh", "-c", "${IDLE}"]\n    labels: { ${TEST_LABEL}: "1" }\n`,
    )
    .join("")}`

const containersOf = async (engine: Engine, project: string) =>
  engine.listContainers({ all: true, filters: { label: [`${STACK_LABEL}=${project}`] } })

beforeAll(async () => {
  engA = dockerEngine(engineHost("a"))
  engB = dockerEngine(engineHost("b"))
  await Promise.all([cleanup(engA), cleanup(engB)])
  hub = await registryHub([process.env.TEST_NETNS_A!, process.env.TEST_NETNS_B!])
  reg = await privateRegistries(hub.ns, hub.address)
  reg.trust(engineHost("a"))
  reg.trust(engineHost("b"))
  await pushVersion(`${reg.basic}/hm/app`, "v1", "one")
  for (const v of ["v1", "v2"]) await pushVersion(`${reg.token}/hm/tok`, `build-${v}`, v)
  scanners = standInPath("trivy")
  const env = (which: "a" | "b") => ({
    DOCKER_HOST: engineHost(which),
    PATH: `${scanners}:${process.env.PATH}`,
    STAND_IN_REPORT: fixture("trivy-alpine-310.json"),
    SVC_PROBE_TIMEOUT_MS: "3000",
  })
  ;[a, b] = await Promise.all([startService(env("a")), startService(env("b"))])
  token = (await call(a, "POST", "/api/cluster/token")).body.token
  const joined = await call(b, "POST", "/api/cluster/join", {
    control_plane_url: a.url,
    token,
    name: "b",
    advertise: b.url,
  })
  expect(joined.status).toBe(200)
})

afterAll(async () => {
  for (const [svc, engine] of [
    [a, engA],
    [b, engB],
  ] as const) {
    if (svc?.proc.exitCode === null)
      for (const name of STACKS) await call(svc, "DELETE", `/api/stacks/${name}`).catch(() => {})
    await cleanup(engine).catch(() => {})
    for (const i of await engine.listImages().catch(() => []))
      for (const t of i.RepoTags ?? [])
        if (t.startsWith(hub.address)) await engine.removeImage(t, { force: true }).catch(() => {})
  }
  await a?.stop()
  await b?.stop()
  await reg?.stop()
  await hub?.remove()
  rmSync(scanners, { recursive: true, force: true })
})

const keep = (svc: Service, name: string, body: Record<string, unknown>) =>
  call(svc, "POST", "/api/registries", { name, ca: reg.ca, ...body })

test("kept registries log in as the real registries answer: Basic, a token service, refusals, an untrusted CA", async () => {
  expect((await keep(a, "basic", { address: `${reg.basic}/hm`, ...reg.users.basic })).status).toBe(201)
  expect((await keep(a, "tok", { address: reg.token, ...reg.users.token })).status).toBe(201)
  expect((await call(a, "POST", "/api/registries/basic/test")).body).toMatchObject({
    ok: true,
    auth: "basic",
    message: "logged in with Basic authentication as user alice",
  })
  expect((await call(a, "POST", "/api/registries/tok/test")).body).toMatchObject({
    ok: true,
    auth: "bearer",
    message: "logged in with a token from its token service as user bob",
  })
  await keep(a, "wrong", { address: `${reg.basic}/other`, username: "alice", password: "not-her-password" })
  expect((await call(a, "POST", "/api/registries/wrong/test")).body).toMatchObject({
    ok: false,
    code: "registry_unauthorized",
    message: `registry ${reg.basic} refused the credentials of user alice: UNAUTHORIZED: authentication required`,
  })
  await call(a, "POST", "/api/registries", { name: "no-ca", address: `${reg.token}/x`, ...reg.users.token })
  expect((await call(a, "POST", "/api/registries/no-ca/test")).body).toMatchObject({
    ok: false,
    code: "registry_tls",
    message: expect.stringContaining(`registry ${reg.token}: GET /v2/ failed on its TLS certificate`),
  })
  await keep(a, "limited", { address: `${reg.limited}/hm/limited`, ...reg.users.basic })
  expect((await call(a, "POST", "/api/registries/limited/test")).body).toMatchObject({
    ok: true,
    pull_quota: { limit: 100, remaining: 100, window_seconds: 21600 },
  })
  for (const name of ["wrong", "no-ca"]) await call(a, "DELETE", `/api/registries/${name}`)
})

test("a stack whose images are only in the private registries deploys; a push makes its update available, its update pulls it", async () => {
  for (const ref of [`${reg.basic}/hm/app:v1`, `${reg.token}/hm/tok:build-v1`])
    await expect(engA.inspectImage(ref)).rejects.toMatchObject({ kind: "not_found" })
  const deployed = await call(a, "POST", "/api/stacks", {
    name: "hm-priv",
    content: stackOf(`${reg.basic}/hm/app:v1`, `${reg.token}/hm/tok:build-v1`),
  })
  expect(deployed.status).toBe(201)
  expect((await containersOf(engA, "hm-priv")).map((c) => c.State)).toEqual(["running", "running"])

  const first = (await call(a, "POST", "/api/stacks/hm-priv/check-update")).body
  expect(
    first.images.map((i: { update_available: boolean; error: string | null }) => [i.update_available, i.error]),
  ).toEqual([
    [false, null],
    [false, null],
  ])
  const v2 = await pushVersion(`${reg.basic}/hm/app`, "v1", "two")
  const second = (await call(a, "POST", "/api/stacks/hm-priv/check-update")).body
  expect(second.update_available).toBe(true)
  expect(second.images.find((i: { ref: string }) => i.ref === `${reg.basic}/hm/app:v1`)).toMatchObject({
    update_available: true,
    error: null,
  })

  const updated = await call(a, "POST", "/api/stacks/hm-priv/update", { watch: 1 })
  expect([updated.status, updated.body.update.verdict]).toEqual([200, "updated"])
  expect(await isVersion(engA, `${reg.basic}/hm/app:v1`, v2)).toBe(true)
  expect((await call(a, "POST", "/api/stacks/hm-priv/check-update")).body.update_available).toBe(false)
  // No compose run's own DOCKER_CONFIG is left in the secret store (its folder is removed once empty).
  const runs = join(a.dataDir, "secrets", "docker")
  expect(existsSync(runs) ? readdirSync(runs) : []).toEqual([])
})

test("a scan of a private image not here pulls it with its credentials first", async () => {
  const ref = `${reg.basic}/hm/app:scan`
  await pushVersion(`${reg.basic}/hm/app`, "scan", "scanned")
  const res = await call(a, "POST", `/api/images/${encodeURIComponent(ref)}/scan?pull=true`)
  expect(res.status).toBe(202)
  expect(res.body).toMatchObject({ ref, state: "queued" })
  for (let i = 0; i < 200; i++) {
    const r = await call(a, "GET", `/api/images/${res.body.image}/scan`)
    if (r.status === 200 && r.body.state === null) {
      expect(r.body).toMatchObject({ status: "done", ref, counts: { medium: 4 } })
      return
    }
    await Bun.sleep(100)
  }
  throw new Error("the scan did not finish")
})

test("wrong credentials, an expired token, a registry down, a 429: each an error naming the registry, nothing deployed", async () => {
  const expectRefused = async (name: string, image: string, status: number, code: string, registry: string) => {
    const res = await call(a, "POST", "/api/stacks", { name, content: stackOf(image) })
    expect([res.status, res.body.error.code]).toEqual([status, code])
    expect(res.body.error.message).toStartWith(`registry ${registry}`)
    expect((await call(a, "GET", `/api/stacks/${name}`)).status).toBe(404)
    expect(await containersOf(engA, name)).toEqual([])
  }
  await keep(a, "basic-wrong", { address: `${reg.basic}/hm/wrong`, username: "alice", password: "stale-password" })
  await expectRefused("hm-priv-bad", `${reg.basic}/hm/wrong/app:v1`, 502, "registry_unauthorized", reg.basic)

  await reg.setExpired(true)
  await expectRefused("hm-priv-tok", `${reg.token}/hm/tok:build-v2`, 502, "registry_unauthorized", reg.token)
  expect((await call(a, "POST", "/api/registries/tok/test")).body).toMatchObject({
    ok: false,
    code: "registry_unauthorized",
    message: expect.stringContaining(`registry ${reg.token} refused the token its token service issued`),
  })
  await reg.setExpired(false)

  await reg.setBasicUp(false)
  await expectRefused("hm-priv-down", `${reg.basic}/hm/app:v1-gone`, 502, "registry_unreachable", reg.basic)
  const pull = await call(a, "POST", "/api/images/pull", { ref: `${reg.basic}/hm/app:v1` })
  expect([pull.status, pull.body.error.code]).toEqual([502, "registry_unreachable"])
  await reg.setBasicUp(true)

  await reg.setRemaining(0)
  await expectRefused("hm-priv-429", `${reg.limited}/hm/limited/app:v1`, 429, "registry_rate_limited", reg.limited)
  const limited = await call(a, "POST", "/api/registries/limited/test")
  expect(limited.body).toMatchObject({ ok: true, pull_quota: { remaining: 0 } })
  await reg.setRemaining(100)
})

test("a copy to a node that never saw the images gives it the credentials; the node pulls and updates with them", async () => {
  const refs = [`${reg.basic}/hm/app:v1`, `${reg.token}/hm/tok:build-v1`]
  for (const ref of refs) await expect(engB.inspectImage(ref)).rejects.toMatchObject({ kind: "not_found" })
  // Untagged here (its containers keep the image): the copy cannot send it, the node pulls it at start.
  for (const ref of refs) await engA.removeImage(ref, { force: true })
  const copied = await call(a, "POST", "/api/stacks/hm-priv/copy", { to: "b", start: true })
  expect(copied.status).toBe(201)
  expect(copied.body.registries).toEqual([
    { name: "basic", address: `${reg.basic}/hm`, send: true },
    { name: "tok", address: reg.token, send: true },
  ])
  expect(copied.body.images.map((i: { send: boolean }) => i.send)).toEqual([false, false])
  expect((await containersOf(engB, "hm-priv")).map((c) => c.State)).toEqual(["running", "running"])
  for (const ref of refs) expect((await engB.inspectImage(ref)).RepoDigests.length).toBeGreaterThan(0)
  const onB = (await call(b, "GET", "/api/registries")).body
  expect(
    onB.map((r: { name: string; origin: string; has_password: boolean }) => [r.name, r.origin, r.has_password]),
  ).toEqual([
    ["basic", "control_plane", true],
    ["tok", "control_plane", true],
  ])

  const v3 = await pushVersion(`${reg.basic}/hm/app`, "v1", "three")
  expect((await call(b, "POST", "/api/stacks/hm-priv/check-update")).body.update_available).toBe(true)
  const updated = await call(b, "POST", "/api/stacks/hm-priv/update", { watch: 1 })
  expect([updated.status, updated.body.update.verdict]).toEqual([200, "updated"])
  expect(await isVersion(engB, `${reg.basic}/hm/app:v1`, v3)).toBe(true)
})

test("no answer, log, event, export or file outside the secret stores holds a password", async () => {
  const cluster = { authorization: `Bearer ${token}` }
  for (const svc of [a, b]) {
    await call(svc, "GET", "/api/events/history")
    await call(svc, "GET", "/api/stacks/hm-priv/export", undefined, cluster)
    await call(svc, "GET", "/api/stacks/hm-priv/env/export", undefined, cluster)
    await call(svc, "GET", "/api/registries")
    await call(svc, "GET", "/api/audit")
  }
  const passwords = [reg.users.basic.password, reg.users.token.password, "stale-password"]
  const forms = passwords.flatMap((p) => [
    p,
    ...["alice", "bob"].flatMap((u) => [Buffer.from(`${u}:${p}`).toString("base64")]),
  ])
  const leaks = (where: string, text: string) => forms.filter((f) => text.includes(f)).map((f) => `${where}: ${f}`)
  const found = answers.flatMap((text, i) => leaks(`answer ${i}`, text))
  for (const svc of [a, b]) {
    for (const file of readdirSync(svc.dataDir, { recursive: true }) as string[]) {
      const path = join(svc.dataDir, file)
      if (file.startsWith("secrets") || !statSync(path).isFile()) continue
      found.push(...leaks(path, readFileSync(path, "latin1")))
    }
    expect(JSON.parse(readFileSync(join(svc.dataDir, "secrets", "registries.json"), "utf8"))).toBeObject()
  }
  for (const svc of [a, b]) for (const name of STACKS) await call(svc, "DELETE", `/api/stacks/${name}`)
  await a.stop()
  await b.stop()
  for (const svc of [a, b])
    for (const stream of [svc.proc.stdout, svc.proc.stderr])
      found.push(...leaks("service log", await new Response(stream as ReadableStream).text()))
  expect(found).toEqual([])
})
