// Stacks made of more than one file, against the real engines and the real compose CLI, through two
// real service processes joined as a cluster: a compose file that `extends:` another file and binds
// `nginx.conf` read-only (the busybox test image `cat`s it in a loop instead of nginx serving it);
// the container sees the file, an edit (PUT + apply), a rollback, and a copy to the second server
// with its files; the same with an `include:`d file on compose v2 (v1 has no include: compose's own
// 400). Bad paths are refused with nothing written to the data directory.
import { afterAll, beforeAll, expect, test } from "bun:test"
import { readdirSync, readFileSync } from "node:fs"
import { join, relative } from "node:path"
import { SERVICE_LABEL, STACK_LABEL } from "#lib/engine/containers.ts"
import type { Engine } from "#lib/engine/client.ts"
import { cleanup, engineHost, realEngine, TEST_LABEL, testImage } from "../support/engine.ts"
import { startService, type Service } from "../support/service.ts"

let engA: Engine
let engB: Engine
let a: Service
let b: Service
const STACKS = ["hm-files", "hm-incl", "hm-bad"]
const v2 = process.env.TEST_COMPOSE === "v2"

/** Prints the bound file twice a second: the last log line is what the container sees now. */
const catLoop = (path: string) => `["sh", "-c", "trap 'exit 0' TERM; while true; do cat ${path}; sleep 0.3; done"]`

const extendsStack = () => ({
  content: `services:
  app:
    extends:
      file: base.yaml
      service: base
    volumes:
      - ./nginx.conf:/etc/nginx.conf:ro
    labels: { ${TEST_LABEL}: "1" }
`,
  files: {
    "base.yaml": `services:\n  base:\n    image: ${testImage()}\n    command: ${catLoop("/etc/nginx.conf")}\n`,
    "nginx.conf": "conf-one\n",
  },
})

const includeStack = () => ({
  content: `include:
  - inc/side.yaml
services:
  app:
    image: ${testImage()}
    command: ${catLoop("/etc/main.conf")}
    volumes:
      - ./main.conf:/etc/main.conf:ro
    labels: { ${TEST_LABEL}: "1" }
`,
  files: {
    // An included file's relative paths resolve against its own folder: ./side.conf is inc/side.conf.
    "inc/side.yaml": `services:\n  side:\n    image: ${testImage()}\n    command: ${catLoop("/etc/side.conf")}\n    volumes: ["./side.conf:/etc/side.conf:ro"]\n    labels: { ${TEST_LABEL}: "1" }\n`,
    "inc/side.conf": "side-one\n",
    "main.conf": "main-one\n",
  },
})

async function call(svc: Service, method: string, path: string, body?: unknown) {
  const res = await fetch(`${svc.url}${path}`, {
    method,
    ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
  })
  const text = await res.text()
  return { status: res.status, body: (text ? JSON.parse(text) : null) as any }
}

/** The last line the service's running container printed: the bound file as the container sees it, polled until it is `want`. */
async function sees(engine: Engine, project: string, service: string, want: string): Promise<string> {
  let last = ""
  for (const deadline = Date.now() + 30_000; Date.now() < deadline; await Bun.sleep(300)) {
    const list = await engine.listContainers({
      all: true,
      filters: { label: [`${STACK_LABEL}=${project}`, `${SERVICE_LABEL}=${service}`] },
    })
    const c = list.find((c) => c.State === "running")
    if (!c) continue
    const lines: string[] = []
    for await (const l of engine.logs(c.Id, { follow: false, tail: 3 })) lines.push(l.line)
    last = lines.at(-1)?.trim() ?? ""
    if (last === want) break
  }
  return last
}

/** Every path under a data directory with its content, to show nothing was written. */
const snapshot = (dir: string) =>
  Object.fromEntries(
    readdirSync(dir, { recursive: true, withFileTypes: true }).map((e) => {
      const p = join(e.parentPath, e.name)
      return [relative(dir, p), e.isDirectory() ? "<dir>" : e.isSymbolicLink() ? "<link>" : readFileSync(p, "utf8")]
    }),
  )

async function wipe(engine: Engine, svc: Service) {
  for (const name of STACKS) await call(svc, "DELETE", `/api/stacks/${name}`).catch(() => {})
  for (const c of await engine.listContainers({ all: true }))
    if (STACKS.includes(c.Labels[STACK_LABEL] ?? "")) await engine.removeContainer(c.Id, { force: true })
  await cleanup(engine)
}

beforeAll(async () => {
  engA = realEngine("a")
  engB = realEngine("b")
  await Promise.all([cleanup(engA), cleanup(engB)])
  const env = (which: "a" | "b") => ({
    DOCKER_HOST: engineHost(which),
    SVC_TRANSFER_IMAGE: testImage(),
    SVC_PROBE_TIMEOUT_MS: "3000",
  })
  ;[a, b] = await Promise.all([startService(env("a")), startService(env("b"))])
  const token = (await call(a, "POST", "/api/cluster/token")).body.token
  expect(
    (await call(b, "POST", "/api/cluster/join", { control_plane_url: a.url, token, name: "b", advertise: b.url }))
      .status,
  ).toBe(200)
}, 120_000)

afterAll(async () => {
  await Promise.all([wipe(engA, a), wipe(engB, b)])
  await Promise.all([a.stop(), b.stop()])
}, 120_000)

/**
 * Deploys `stack`, checks that `service` sees `file` (bound at its path), edits it (PUT + apply), rolls
 * back to version 1, and copies the stack to the node, where it starts with its files.
 */
async function lifeOf(
  name: string,
  stack: { content: string; files: Record<string, string> },
  service: string,
  file: string,
) {
  const first = stack.files[file]!.trim()
  const deployed = await call(a, "POST", "/api/stacks", { name, ...stack })
  expect([deployed.status, deployed.body.error]).toEqual([201, undefined])
  expect(deployed.body).toMatchObject({ status: "running", current_version: 1, files: Object.keys(stack.files).sort() })
  expect(await sees(engA, name, service, first)).toBe(first)

  // The edit waits for apply; apply adds a version naming the file, and the container sees it.
  const put = await call(a, "PUT", `/api/stacks/${name}/files/${file}`, { content: "edited\n" })
  expect(put.body).toMatchObject({ created: false, files_pending: true })
  expect(await sees(engA, name, service, first)).toBe(first)
  const applied = await call(a, "POST", `/api/stacks/${name}/apply`)
  expect([applied.status, applied.body.error]).toEqual([200, undefined])
  expect(applied.body).toMatchObject({ current_version: 2, files_pending: false })
  expect(await sees(engA, name, service, "edited")).toBe("edited")
  const versions = (await call(a, "GET", `/api/stacks/${name}/versions`)).body
  expect(versions[1].changes.files).toEqual({ added: [], removed: [], changed: [file] })

  // Rollback restores the old content in the container.
  const back = await call(a, "POST", `/api/stacks/${name}/rollback/1`)
  expect([back.status, back.body.error]).toEqual([200, undefined])
  expect(await sees(engA, name, service, first)).toBe(first)
  expect(readFileSync(join(a.dataDir, "stacks", name, file), "utf8")).toBe(stack.files[file]!)

  // The copy plans the files (a bind of one needs no allow_binds) and carries them.
  const dry = await call(a, "POST", `/api/stacks/${name}/copy`, { to: "b", dry_run: true })
  expect([dry.status, dry.body.blockers, dry.body.files]).toEqual([200, [], Object.keys(stack.files).sort()])
  const copied = await call(a, "POST", `/api/stacks/${name}/copy`, { to: "b", start: true })
  expect([copied.status, copied.body.error]).toEqual([201, undefined])
  expect(await sees(engB, name, service, first)).toBe(first)
  for (const [path, content] of Object.entries(stack.files))
    expect((await call(b, "GET", `/api/stacks/${name}/files/${path}`)).body.content).toBe(content)
  const there = (await call(b, "GET", `/api/stacks/${name}/versions`)).body
  expect(there.map((v: any) => [v.version, v.current])).toEqual([
    [1, true],
    [2, false],
  ])
}

test("compose.yaml + nginx.conf (bound read-only) + an extends: file: deploy, edit, rollback, copy to the node", async () => {
  await lifeOf("hm-files", extendsStack(), "app", "nginx.conf")
}, 300_000)

test("an include:d file with its own bound file: the same on compose v2; compose v1's own 400", async () => {
  if (!v2) {
    const before = snapshot(join(a.dataDir, "stacks"))
    const res = await call(a, "POST", "/api/stacks", { name: "hm-incl", ...includeStack() })
    expect([res.status, res.body.error.code]).toEqual([400, "invalid_compose"])
    expect(res.body.error.message).toContain("include")
    expect(snapshot(join(a.dataDir, "stacks"))).toEqual(before)
    return
  }
  await lifeOf("hm-incl", includeStack(), "side", "inc/side.conf")
  expect(await sees(engA, "hm-incl", "app", "main-one")).toBe("main-one")
}, 300_000)

test("traversal, absolute paths, reserved names and oversize files are refused and the data directory is unchanged", async () => {
  const stack = extendsStack()
  expect((await call(a, "POST", "/api/stacks", { name: "hm-bad", ...stack })).status).toBe(201)
  const before = snapshot(join(a.dataDir, "stacks"))
  const containers = (await engA.listContainers({ all: true })).map((c) => c.Id).sort()
  const deploy = (files: Record<string, string>) =>
    call(a, "POST", "/api/stacks", { name: "hm-bad", content: stack.content, files: { ...stack.files, ...files } })
  const cases: [string, Promise<{ status: number; body: any }>, number][] = [
    ["deploy ../escape", deploy({ "../escape": "x" }), 400],
    ["deploy a/../../escape", deploy({ "a/../../escape": "x" }), 400],
    ["deploy /etc/cron.d/x", deploy({ "/etc/cron.d/x": "x" }), 400],
    ["deploy state.json", deploy({ "state.json": "{}" }), 400],
    ["deploy versions/1.json", deploy({ "versions/1.json": "{}" }), 400],
    ["deploy .env", deploy({ ".env": "A=1" }), 400],
    ["deploy 1 MiB + 1", deploy({ "big.conf": "x".repeat(1024 * 1024 + 1) }), 413],
    [
      "new stack with ../escape",
      call(a, "POST", "/api/stacks", {
        name: "hm-bad2",
        content: stack.content,
        files: { ...stack.files, "../hm-files/nginx.conf": "x" },
      }),
      400,
    ],
    ["PUT %2e%2e%2fescape", call(a, "PUT", "/api/stacks/hm-bad/files/..%2Fescape", { content: "x" }), 400],
    ["PUT %2Fetc%2Fpasswd", call(a, "PUT", "/api/stacks/hm-bad/files/%2Fetc%2Fpasswd", { content: "x" }), 400],
    ["PUT a%00b", call(a, "PUT", "/api/stacks/hm-bad/files/a%00b", { content: "x" }), 400],
    ["PUT compose.yaml", call(a, "PUT", "/api/stacks/hm-bad/files/compose.yaml", { content: "services: {}" }), 400],
    ["PUT env.json", call(a, "PUT", "/api/stacks/hm-bad/files/env.json", { content: "[]" }), 400],
    ["PUT versions/1.json", call(a, "PUT", "/api/stacks/hm-bad/files/versions/1.json", { content: "{}" }), 400],
    [
      "PUT oversize",
      call(a, "PUT", "/api/stacks/hm-bad/files/big.conf", { content: "x".repeat(1024 * 1024 + 1) }),
      413,
    ],
    [
      "PUT an extends file reaching /etc",
      call(a, "PUT", "/api/stacks/hm-bad/files/base.yaml", {
        content: `services:\n  base:\n    image: ${testImage()}\n    volumes: ["/etc:/host-etc"]\n`,
      }),
      400,
    ],
    ["DELETE the extends file compose needs", call(a, "DELETE", "/api/stacks/hm-bad/files/base.yaml"), 400],
  ]
  for (const [what, res, status] of cases) expect([what, (await res).status]).toEqual([what, status])
  expect(snapshot(join(a.dataDir, "stacks"))).toEqual(before)
  expect((await engA.listContainers({ all: true })).map((c) => c.Id).sort()).toEqual(containers)
}, 120_000)
