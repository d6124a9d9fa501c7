// The compiled binary: built by scripts/build.ts, started from another directory, it answers
// /api/health with the build's source revision and serves the UI page with its files (embedded) and
// the API's rendered reference; the handler files and the rooms that it loads by their first use
// (split into chunks of their own) are found in it. Its host terminal runs bun-pty's native library
// embedded in it, in a worker that is the binary itself, whose shell's process tree ends with the
// socket, and with the service when it is killed.
import { afterAll, beforeAll, expect, test } from "bun:test"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { builtBinary } from "../support/build.ts"
import { engineHost, testImage } from "../support/engine.ts"
import { startService, type Service } from "../support/service.ts"
import { terminal } from "../support/terminal.ts"

const root = join(import.meta.dir, "../..")
const elsewhere = mkdtempSync(join(tmpdir(), "hm-bin-cwd-"))
let svc: Service
/** The binary, started with a working directory that holds nothing of the project, its host terminal on (loopback only). */
const startBinary = async () =>
  startService(
    { DOCKER_HOST: engineHost(), SVC_HOST_SHELL: "root" },
    { cmd: ["sh", "-c", `cd '${elsewhere}' && exec '${await builtBinary()}'`] },
  )

/** Whether a process is there and not a zombie (dead, waiting to be reaped). */
const alive = (pid: string) => {
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, "utf8"))
  } catch {
    return false
  }
}

/** A host terminal of `service` with a process left running in the background (it ignores SIGHUP); its pid. */
async function hostShell(service: Service) {
  const t = await terminal(`${service.url.replace("http", "ws")}/api/host/shell`, { headers: { origin: service.url } })
  await t.prompt()
  t.type("echo $((6*7))-on-the-host; nohup sleep 600 >/dev/null 2>&1 & echo pid=$!\r")
  await t.waitFor(/42-on-the-host/)
  const pid = (await t.waitFor(/pid=(\d+)/))[1]!
  expect(alive(pid)).toBe(true)
  return { t, pid }
}

/** Waits up to 20 s for `pid` to be gone. */
async function gone(pid: string): Promise<boolean> {
  for (let i = 0; i < 200 && alive(pid); i++) await Bun.sleep(100)
  return !alive(pid)
}

beforeAll(async () => {
  svc = await startBinary()
}, 120_000)
afterAll(async () => {
  if (svc) await fetch(`${svc.url}/api/stacks/hm-bin?volumes=true`, { method: "DELETE" }).catch(() => {})
  await svc?.stop()
  rmSync(elsewhere, { recursive: true, force: true })
})

test("answers /api/health with the sha of the build and a reachable engine", async () => {
  const head = Bun.spawnSync(["git", "rev-parse", "HEAD"], { cwd: root }).stdout.toString().trim()
  const health = await (await fetch(`${svc.url}/api/health`)).json()
  expect(health).toMatchObject({ status: "ok", sha: head, engine: { reachable: true } })
})

test("serves the UI page at / with its script and styles, the API reference and the API beside it", async () => {
  const page = await fetch(`${svc.url}/`)
  expect(page.status).toBe(200)
  expect(page.headers.get("content-type")).toContain("text/html")
  const html = await page.text()
  expect(html).toContain("<title>Harbormaster</title>")
  // The bundle's files, embedded in the binary and served by the static plugin, revalidated by their ETag.
  const files = [...html.matchAll(/(?:src|href)="\.?\/?([^"]+\.(?:js|css))"/g)].map((m) => m[1]!)
  expect(files.map((f) => f.split(".").pop()).sort()).toEqual(["css", "js"])
  for (const file of files) {
    const res = await fetch(`${svc.url}/${file}`)
    expect([file, res.status, res.headers.get("cache-control")]).toEqual([file, 200, "no-cache"])
    expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(1000)
    const again = await fetch(`${svc.url}/${file}`, { headers: { "if-none-match": res.headers.get("etag")! } })
    expect([file, again.status]).toEqual([file, 304])
  }
  const reference = await fetch(`${svc.url}/openapi/reference`)
  expect([reference.status, reference.headers.get("content-type")]).toEqual([200, "text/html; charset=utf8"])
  const dashboard = await fetch(`${svc.url}/api/dashboard`)
  expect(dashboard.status).toBe(200)
  expect((await dashboard.json()).engine.version).toEqual(expect.any(String))
})

test("loads what a route needs by its first request: /openapi with every route, a stack deployed, listed and removed", async () => {
  const doc = await (await fetch(`${svc.url}/openapi`)).json()
  expect(doc.paths["/api/stacks/{name}/env"]).toBeDefined()
  expect(Object.keys(doc.paths).length).toBeGreaterThan(100)
  const send = (method: string, path: string, body?: unknown) =>
    fetch(`${svc.url}${path}`, {
      method,
      ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
    })
  const content = `services:\n  app:\n    image: ${testImage()}\n    command: ["sleep", "600"]\n`
  const deployed = await send("POST", "/api/stacks", { name: "hm-bin", content })
  expect([deployed.status, (await deployed.json()).status]).toEqual([201, "running"])
  expect((await (await send("GET", "/api/stacks")).json()).map((s: { name: string }) => s.name)).toContain("hm-bin")
  expect((await send("DELETE", "/api/stacks/hm-bin?volumes=true")).status).toBe(200)
  expect((await send("GET", "/api/stacks/hm-bin")).status).toBe(404)
})

test("runs a host terminal in bun-pty; closing its socket ends the shell's whole process tree", async () => {
  const { t, pid } = await hostShell(svc)
  t.ws.close()
  await t.closed
  expect(await gone(pid)).toBe(true)
})

test("a host terminal's process tree ends with the service when the service is killed", async () => {
  const other = await startBinary()
  const { pid } = await hostShell(other)
  other.proc.kill("SIGKILL")
  await other.proc.exited
  expect(await gone(pid)).toBe(true)
  await other.stop()
})
