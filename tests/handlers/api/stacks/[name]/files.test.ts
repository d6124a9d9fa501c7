import { afterEach, expect, test } from "bun:test"
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs"
import { join, relative } from "node:path"
import { stackApp } from "../../../../support/compose.ts"

let t: Awaited<ReturnType<typeof stackApp>>
afterEach(() => t.close())

const compose = `services:
  web:
    extends:
      file: base.yaml
      service: base
    volumes:
      - ./nginx.conf:/etc/nginx.conf:ro
      - ./data:/data
`
const base = "services:\n  base:\n    image: busybox\n"
const files = { "nginx.conf": "worker_processes 1;\n", "base.yaml": base }
const dir = () => join(t.dataDir, "stacks/demo")
/** Every path under the data directory with its content (or "<dir>"/"<link>"), to show nothing was written. */
const snapshot = () =>
  Object.fromEntries(
    readdirSync(t.dataDir, { recursive: true, withFileTypes: true }).map((e) => {
      const p = join(e.parentPath, e.name)
      return [
        relative(t.dataDir, p),
        e.isDirectory() ? "<dir>" : e.isSymbolicLink() ? "<link>" : readFileSync(p, "utf8"),
      ]
    }),
  )

async function deployed() {
  t = await stackApp()
  const res = await t.call("POST", "/api/stacks", { name: "demo", content: compose, files })
  expect(res.status).toBe(201)
  return res.json()
}

test("a deploy with files writes them beside compose.yaml, lets compose see them first, and keeps them in the version", async () => {
  const view = await deployed()
  expect(view).toMatchObject({ current_version: 1, files_pending: false, files: ["base.yaml", "nginx.conf"] })
  expect(readFileSync(join(dir(), "nginx.conf"), "utf8")).toBe(files["nginx.conf"])
  expect(t.compose.configCalls[0]!.files).toEqual(files)
  expect(await (await t.call("GET", "/api/stacks/demo/files")).json()).toEqual([
    { path: "base.yaml", size: base.length },
    { path: "nginx.conf", size: files["nginx.conf"].length },
  ])
  expect(await (await t.call("GET", "/api/stacks/demo/files/nginx.conf")).json()).toEqual({
    path: "nginx.conf",
    content: files["nginx.conf"],
  })
  expect((await t.call("GET", "/api/stacks/demo/files/nope.conf")).status).toBe(404)
  expect((await t.call("GET", "/api/stacks/nope/files")).status).toBe(404)
  const [v1] = await (await t.call("GET", "/api/stacks/demo/versions")).json()
  expect(v1.changes.files).toEqual({ added: ["base.yaml", "nginx.conf"], removed: [], changed: [] })
  // A redeploy without files keeps them; the nginx.conf bind is a file of the stack, ./data its data.
  expect((await t.call("POST", "/api/stacks", { name: "demo", content: compose })).status).toBe(200)
  expect(readFileSync(join(dir(), "base.yaml"), "utf8")).toBe(base)
  const doc = await (
    await t.call("GET", "/api/stacks/demo/export", undefined, { authorization: `Bearer ${await token()}` })
  ).json()
  expect(doc.files).toEqual(files)
  expect(doc.mounts.binds.map((b: any) => [b.target, b.data, b.file ?? false])).toEqual([
    ["/etc/nginx.conf", false, true],
    ["/data", true, false],
  ])
})

const token = async () => (await (await t.call("POST", "/api/cluster/token")).json()).token

test("PUT and DELETE change a file without deploying (files_pending), apply deploys it as a new version, rollback restores it", async () => {
  await deployed()
  const calls = t.compose.calls.length
  let res = await t.call("PUT", "/api/stacks/demo/files/nginx.conf", { content: "worker_processes 2;\n" })
  expect(res.status).toBe(200)
  expect(await res.json()).toMatchObject({ path: "nginx.conf", created: false, files_pending: true })
  res = await t.call("PUT", "/api/stacks/demo/files/conf.d/site.conf", { content: "server {}\n" })
  expect(res.status).toBe(201)
  expect(readFileSync(join(dir(), "conf.d/site.conf"), "utf8")).toBe("server {}\n")
  // A path's slashes may come encoded (as the MCP tools send them).
  expect((await t.call("GET", "/api/stacks/demo/files/conf.d%2Fsite.conf")).status).toBe(200)
  expect(t.compose.calls.length).toBe(calls) // nothing deployed
  expect(t.compose.configCalls.at(-1)!.files["conf.d/site.conf"]).toBe("server {}\n") // but compose saw it first
  expect((await (await t.call("GET", "/api/stacks/demo")).json()).files_pending).toBe(true)

  // Back to the deployed content: nothing pending.
  await t.call("PUT", "/api/stacks/demo/files/nginx.conf", { content: files["nginx.conf"] })
  res = await t.call("DELETE", "/api/stacks/demo/files/conf.d/site.conf")
  expect(await res.json()).toMatchObject({ files_pending: false, files: ["base.yaml", "nginx.conf"] })
  expect(existsSync(join(dir(), "conf.d"))).toBe(false)
  expect((await t.call("DELETE", "/api/stacks/demo/files/conf.d/site.conf")).status).toBe(404)

  await t.call("PUT", "/api/stacks/demo/files/nginx.conf", { content: "worker_processes 2;\n" })
  expect(await (await t.call("POST", "/api/stacks/demo/apply")).json()).toMatchObject({
    current_version: 2,
    files_pending: false,
  })
  const versions = await (await t.call("GET", "/api/stacks/demo/versions")).json()
  expect(versions[1].changes).toMatchObject({
    compose: false,
    files: { added: [], removed: [], changed: ["nginx.conf"] },
  })

  await t.call("PUT", "/api/stacks/demo/files/extra.env", { content: "A=1\n" })
  expect(await (await t.call("POST", "/api/stacks/demo/rollback/1")).json()).toMatchObject({
    current_version: 1,
    files_pending: false,
    files: ["base.yaml", "nginx.conf"],
  })
  expect(readFileSync(join(dir(), "nginx.conf"), "utf8")).toBe(files["nginx.conf"])
  expect(existsSync(join(dir(), "extra.env"))).toBe(false)
})

test("bad paths, reserved names, oversize files and too many files are refused and nothing is written", async () => {
  await deployed()
  mkdirSync(join(dir(), "data"), { recursive: true }) // made by the deploy already: its bind source
  writeFileSync(join(dir(), "data/db"), "precious")
  symlinkSync("/etc", join(dir(), "etc-link"))
  const before = snapshot()
  const refused = async (method: string, path: string, body: unknown, status: number, code?: string) => {
    const res = await t.call(method, path, body)
    expect([path, res.status]).toEqual([path, status])
    if (code) expect([path, (await res.json()).error.code]).toEqual([path, code])
  }
  const put = (p: string, status: number, code?: string, content = "x") =>
    refused("PUT", `/api/stacks/demo/files/${p}`, { content }, status, code)
  for (const p of [
    "..%2Fescape",
    "a/..%2F..%2Fescape",
    "%2Fetc%2Fpasswd",
    "a%00b",
    ".hidden",
    "a//b",
    "a%5Cb",
    "a%2F.%2Fb",
    `${"d/".repeat(32)}f`,
    Array(11).fill("x".repeat(100)).join("%2F"),
    "x".repeat(101),
  ])
    await put(p, 400, "invalid_path")
  for (const p of ["compose.yaml", "env.json", "state.json", "versions/1.json", "versions/x"])
    await put(p, 400, "reserved_path")
  await put(".env", 400)
  await put("etc-link/passwd", 400, "invalid_path") // a symlink in the stack's folder is never followed
  await put("data/db", 409, "path_taken") // the stack's data stays its own
  await put("data", 409, "path_taken")
  await put("big.conf", 413, "file_too_large", "x".repeat(1024 * 1024 + 1))
  await put("nginx.conf/inner", 400, "invalid_path")
  await refused("DELETE", "/api/stacks/demo/files/data/db", undefined, 404)
  await refused("DELETE", "/api/stacks/demo/files/compose.yaml", undefined, 400, "reserved_path")
  await refused("GET", "/api/stacks/demo/files/..%2Fdemo%2Fstate.json", undefined, 400, "invalid_path")

  const deploy = (f: Record<string, string>, status: number, code?: string) =>
    refused("POST", "/api/stacks", { name: "demo", content: compose, files: { ...files, ...f } }, status, code)
  await deploy({ "../escape": "x" }, 400, "invalid_path")
  await deploy({ "/etc/cron.d/x": "x" }, 400, "invalid_path")
  await deploy({ "state.json": "{}" }, 400, "reserved_path")
  await deploy({ "versions/9.json": "{}" }, 400, "reserved_path")
  await deploy({ "big.conf": "x".repeat(1024 * 1024 + 1) }, 413, "file_too_large")
  await deploy(Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`f${i}`, "x"])), 400)
  await deploy({ "etc-link/x": "x" }, 400, "invalid_path")
  await deploy({ "data/db": "overwritten" }, 409, "path_taken")
  expect(snapshot()).toEqual(before)
  expect(lstatSync(join(dir(), "etc-link")).isSymbolicLink()).toBe(true)
})

test("a file compose refuses (or that reaches outside the stack) is refused on PUT, and nothing is written", async () => {
  await deployed()
  const before = readFileSync(join(dir(), "base.yaml"), "utf8")
  let res = await t.call("PUT", "/api/stacks/demo/files/base.yaml", {
    content: "services:\n  base:\n    image: busybox\n    env_file: /etc/shadow\n",
  })
  expect([res.status, (await res.json()).error.code]).toEqual([400, "host_path_refused"])
  t.compose.failures.set("config", "service base: extends refers to a missing service")
  res = await t.call("DELETE", "/api/stacks/demo/files/base.yaml")
  expect(res.status).toBe(400)
  expect(readFileSync(join(dir(), "base.yaml"), "utf8")).toBe(before)
})

test("export and import carry the files and every version's files", async () => {
  await deployed()
  await t.call("PUT", "/api/stacks/demo/files/nginx.conf", { content: "pending\n" })
  const auth = { authorization: `Bearer ${await token()}` }
  const doc = await (await t.call("GET", "/api/stacks/demo/export", undefined, auth)).json()
  expect(doc.files["nginx.conf"]).toBe("pending\n")
  expect(doc.versions[0].files).toEqual(files)
  const res = await t.call("POST", "/api/stacks/import", { ...doc, name: "copy" }, auth)
  expect(res.status).toBe(201)
  expect(readFileSync(join(t.dataDir, "stacks/copy/nginx.conf"), "utf8")).toBe("pending\n")
  expect(await (await t.call("GET", "/api/stacks/copy")).json()).toMatchObject({
    files_pending: true,
    files: ["base.yaml", "nginx.conf"],
  })
  const bad = await t.call("POST", "/api/stacks/import", { ...doc, name: "bad", files: { "../x": "x" } }, auth)
  expect(bad.status).toBe(400)
  const badVersion = await t.call(
    "POST",
    "/api/stacks/import",
    { ...doc, name: "bad", versions: [{ ...doc.versions[0], files: { "state.json": "{}" } }] },
    auth,
  )
  expect(badVersion.status).toBe(400)
  expect(existsSync(join(t.dataDir, "stacks/bad"))).toBe(false)
})

test("apply and rollback recreate the services that bind a file whose content changed (a container keeps the file it was given)", async () => {
  await deployed()
  await t.call("PUT", "/api/stacks/demo/files/nginx.conf", { content: "changed\n" })
  await t.call("POST", "/api/stacks/demo/apply")
  expect(t.compose.calls.slice(-2).map((c) => c.args.join(" "))).toEqual([
    "up -d --remove-orphans",
    "up -d --no-deps --force-recreate web",
  ])
  await t.call("PUT", "/api/stacks/demo/files/other.conf", { content: "not bound\n" })
  await t.call("POST", "/api/stacks/demo/apply")
  expect(t.compose.calls.at(-1)!.args.join(" ")).toBe("up -d --remove-orphans")
  await t.call("POST", "/api/stacks/demo/rollback/1")
  expect(t.compose.calls.at(-1)!.args.join(" ")).toBe("up -d --no-deps --force-recreate web")
})
