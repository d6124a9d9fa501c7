// A node's volume and container files through the control plane's gateway, on real engines: the
// member (on engine b) does the work with its own engine, the control plane (on engine a) forwards.
// Both have sign-in on: the gateway is for the control plane's admins, and the member's role table
// decides on the role the gateway's proof names. Across the hop: paths that climb out, links out of
// the volume and the container, 1 GiB streamed both ways with neither server holding it, and a
// folder's tar failing midway on the node arriving as an aborted answer.
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { createHash } from "node:crypto"
import { createReadStream, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Engine } from "#lib/engine/client.ts"
import { signProof } from "#lib/cluster/proof.ts"
import { cleanup, engineHost, realEngine, runContainer, TEST_LABEL, testImage } from "../support/engine.ts"
import { alive, ancestors, waitForProcess } from "../support/procs.ts"
import { startService, type Service } from "../support/service.ts"
import { makeTar } from "../support/tar.ts"
import { terminal } from "../support/terminal.ts"
import { addUser, signIn } from "../support/users.ts"

let engine: Engine
let cp: Service
let member: Service
const dirs: string[] = []
/** Session cookies on the control plane, by role; the member's own admin. */
const on: Record<"admin" | "operator" | "viewer" | "member", string> = {
  admin: "",
  operator: "",
  viewer: "",
  member: "",
}
let token = ""
let cpId = ""
let memberId = ""

/** Stands in for the node's host: its secret must never be read, nothing may be written into it. */
const host = mkdtempSync(join(tmpdir(), "hm-host-"))
const SECRET = "host secret, never to be read"
writeFileSync(join(host, "secret"), SECRET)
const hostUntouched = () => {
  expect(readdirSync(host)).toEqual(["secret"])
  expect(readFileSync(join(host, "secret"), "utf8")).toBe(SECRET)
}

async function signedIn(
  which: "a" | "b",
  users: [string, string][],
  env: Record<string, string> = {},
): Promise<Service> {
  const dataDir = mkdtempSync(join(tmpdir(), `hm-gwfiles-${which}-`))
  dirs.push(dataDir)
  for (const [name, role] of users) await addUser(dataDir, name, role)
  return startService(
    {
      DOCKER_HOST: engineHost(which),
      SVC_AUTH: "local",
      SVC_TRANSFER_IMAGE: testImage(),
      SVC_PROBE_TIMEOUT_MS: "3000",
      ...env,
    },
    { dataDir },
  )
}

beforeAll(async () => {
  engine = realEngine("b")
  await cleanup(engine)
  ;[cp, member] = await Promise.all([
    signedIn("a", [
      ["root", "admin"],
      ["op", "operator"],
      ["view", "viewer"],
    ]),
    // The node allows a terminal on its host; the control plane does not.
    signedIn("b", [["root", "admin"]], { SVC_HOST_SHELL: "root" }),
  ])
  on.admin = (await signIn(cp.url, "root")).cookie
  on.operator = (await signIn(cp.url, "op")).cookie
  on.viewer = (await signIn(cp.url, "view")).cookie
  on.member = (await signIn(member.url, "root")).cookie
  token = (await (await call("POST", "/api/cluster/token", undefined, {}, cp.url)).json()).token
  cpId = (await (await call("GET", "/api/cluster", undefined, {}, cp.url)).json()).server_id
  const joined = await fetch(`${member.url}/api/cluster/join`, {
    method: "POST",
    headers: { cookie: on.member, "content-type": "application/json" },
    body: JSON.stringify({ control_plane_url: cp.url, token, name: "m1", advertise: member.url }),
  })
  expect(joined.status).toBe(200)
  memberId = (await (await fetch(`${member.url}/api/health`)).json()).server_id
})
afterAll(async () => {
  await cp?.stop()
  await member?.stop()
  await cleanup(engine)
  for (const dir of [...dirs, host]) rmSync(dir, { recursive: true, force: true })
})

/** A call to the control plane (or `url`) as its admin (or the cookie given in `headers`); a path under /api/nodes/m1/proxy when it starts with "node:". */
function call(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
  url = cp.url,
): Promise<Response> {
  const json = body !== undefined && !(body instanceof Uint8Array) && !(body instanceof Blob)
  return fetch(`${url}${path.replace(/^node:/, "/api/nodes/m1/proxy")}`, {
    method,
    headers: { cookie: on.admin, ...(json && { "content-type": "application/json" }), ...headers },
    body: json ? JSON.stringify(body) : (body as BodyInit | undefined),
  })
}
const jsonOf = async (res: Response) => ({ status: res.status, body: (await res.json()) as any })

/** The bytes of a body as far as they came, and whether it was cut short (an error instead of its end). */
async function received(res: Response): Promise<{ bytes: number; sha256: string; cut: boolean }> {
  const hash = createHash("sha256")
  let bytes = 0
  try {
    for await (const chunk of res.body!) {
      hash.update(chunk)
      bytes += chunk.length
    }
    return { bytes, sha256: hash.digest("hex"), cut: false }
  } catch {
    return { bytes, sha256: "", cut: true }
  }
}

/** Runs `script` once in a container on the member's engine binding the volume at /v, and waits for it. */
async function inVolume(volume: string, script: string): Promise<void> {
  const id = await runContainer(engine, `hm-gwfiles-${Math.random().toString(36).slice(2, 8)}`, script, {
    HostConfig: { Mounts: [{ Type: "volume", Source: volume, Target: "/v" }] },
  })
  expect((await engine.waitContainer(id)).StatusCode).toBe(0)
  await engine.removeContainer(id, { force: true })
}

const rssOf = (svc: Service) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${svc.proc.pid}/status`, "utf8"))![1]) * 1024

describe("a node's volume through the gateway", () => {
  const volume = "hm-gwfiles-data"
  const base = `node:/api/volumes/${volume}/files`

  beforeAll(async () => {
    await engine.createVolume(volume, { [TEST_LABEL]: "1" })
    await inVolume(
      volume,
      `mkdir -p /v/conf && echo 'port: 1' > /v/conf/app.yaml && ln -s ${host}/secret /v/to-secret && ln -s ${host} /v/to-host`,
    )
  })

  test("the control plane's admin lists, reads, edits, uploads, downloads, renames and removes the node's files", async () => {
    // The volume is the node's: the control plane's own engine has none of that name.
    expect((await call("GET", `/api/volumes/${volume}/files`)).status).toBe(404)
    const listed = await jsonOf(await call("GET", `${base}?path=conf`))
    expect(listed.status).toBe(200)
    expect(listed.body.entries).toMatchObject([{ name: "app.yaml", kind: "file", size: 8, mode: "0644" }])

    const read = await jsonOf(await call("GET", `${base}/text?path=conf/app.yaml`))
    expect(read.body.text).toBe("port: 1\n")
    const saved = await call("PUT", `${base}/text`, {
      path: "conf/app.yaml",
      text: "port: 2\n",
      version: read.body.version,
    })
    expect(saved.status).toBe(200)
    const stale = await jsonOf(
      await call("PUT", `${base}/text`, { path: "conf/app.yaml", text: "port: 3\n", version: read.body.version }),
    )
    expect(stale).toMatchObject({ status: 409, body: { error: { code: "file_changed" } } })

    expect((await call("POST", `${base}/folder`, { path: "up" })).status).toBe(201)
    const bytes = new Uint8Array([0, 1, 2, 255, 10, 13])
    expect((await call("PUT", `${base}/content?path=up/raw.bin`, bytes)).status).toBe(200)
    const down = await call("GET", `${base}/content?path=up/raw.bin&download=true`)
    expect(new Uint8Array(await down.arrayBuffer())).toEqual(bytes)
    expect(down.headers.get("content-disposition")).toContain("raw.bin")

    const tar = await makeTar([{ name: "site/index.html", content: "<p>hi</p>" }])
    expect((await call("POST", `${base}/archive?path=up`, tar, { "content-type": "application/x-tar" })).status).toBe(
      201,
    )
    expect(await (await call("GET", `${base}/content?path=up/site/index.html`)).text()).toBe("<p>hi</p>")
    // The folder's tar, uploaded back into a new folder, gives the same files.
    const archive = await call("GET", `${base}/archive?path=up`)
    expect(archive.headers.get("content-type")).toBe("application/x-tar")
    const back = new Uint8Array(await archive.arrayBuffer())
    expect((await call("POST", `${base}/folder`, { path: "copy" })).status).toBe(201)
    expect(
      (await call("POST", `${base}/archive?path=copy`, back, { "content-type": "application/x-tar" })).status,
    ).toBe(201)
    expect(await (await call("GET", `${base}/content?path=copy/up/site/index.html`)).text()).toBe("<p>hi</p>")
    expect(new Uint8Array(await (await call("GET", `${base}/content?path=copy/up/raw.bin`)).arrayBuffer())).toEqual(
      bytes,
    )

    expect((await call("POST", `${base}/rename`, { from: "copy/up", to: "moved" })).status).toBe(200)
    expect((await call("DELETE", `${base}?path=copy`)).status).toBe(200)
    const root = await jsonOf(await call("GET", base))
    expect(root.body.entries.map((e: any) => e.name)).toEqual(["conf", "moved", "up", "to-host", "to-secret"])

    // The member's audit names the control plane's admin, via the control plane.
    const audit = await jsonOf(await call("GET", "/api/audit?user=root", undefined, { cookie: on.member }, member.url))
    const via = audit.body.entries
      .filter((e: any) => e.via === cpId)
      .map((e: any) => `${e.method} ${e.route} ${e.status}`)
    expect(via).toEqual(
      expect.arrayContaining([
        "PUT /api/volumes/:name/files/text 200",
        "PUT /api/volumes/:name/files/text 409",
        "POST /api/volumes/:name/files/archive 201",
        "DELETE /api/volumes/:name/files 200",
      ]),
    )
  })

  test("roles: the gateway is the control plane's admins'; the member decides by the role the proof names", async () => {
    for (const role of ["operator", "viewer"] as const) {
      expect((await call("GET", base, undefined, { cookie: on[role] })).status).toBe(403)
      expect((await call("PUT", `${base}/text`, { path: "x", text: "x" }, { cookie: on[role] })).status).toBe(403)
    }
    // What the member does with a call whose proof names a viewer or an operator of the control plane.
    const as = (role: string, method: string, path: string, body?: unknown) => {
      const proof = signProof(token, { method, path, who: { controlPlane: cpId, node: memberId, user: role, role } })
      return fetch(`${member.url}${path}`, {
        method,
        headers: { "x-hm-proof": proof, ...(body !== undefined && { "content-type": "application/json" }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
    }
    const files = `/api/volumes/${volume}/files`
    expect((await as("viewer", "GET", `${files}?path=conf`)).status).toBe(200)
    expect(await (await as("viewer", "GET", `${files}/content?path=conf/app.yaml`)).text()).toBe("port: 2\n")
    expect((await as("viewer", "PUT", `${files}/text`, { path: "by-viewer", text: "x" })).status).toBe(403)
    expect((await as("viewer", "POST", `${files}/folder`, { path: "by-viewer" })).status).toBe(403)
    expect((await as("viewer", "DELETE", `${files}?path=conf`)).status).toBe(403)
    expect((await as("operator", "PUT", `${files}/text`, { path: "by-operator", text: "x" })).status).toBe(200)
    expect((await as("operator", "DELETE", `${files}?path=by-operator`)).status).toBe(200)
    const names = (await jsonOf(await call("GET", base))).body.entries.map((e: any) => e.name)
    expect(names).not.toContain("by-viewer")
    expect(names).not.toContain("by-operator")
  })

  test("paths that climb out of the volume and links out of it lead nowhere, across the hop", async () => {
    const climbs = [
      `${base}/content?path=../../../../etc/passwd`,
      `${base}/content?path=conf/../../../../etc/passwd`,
      `${base}/content?path64=${Buffer.from("../../../../etc/passwd").toString("base64url")}`,
      `${base}/content?path=${encodeURIComponent(`..${host}/secret`)}`,
      `${base}/content?path=to-secret`,
      `${base}/content?path=to-host/secret`,
      `${base}/archive?path=to-host/secret`,
      `${base}/text?path=to-secret`,
      `node:/api/volumes/${volume}/files/%2e%2e/%2e%2e/%2e%2e/%2e%2e/etc/passwd`,
      `node:/api/volumes/..%2f..%2f..%2fetc/files/content?path=passwd`,
    ]
    for (const path of climbs) {
      const res = await call("GET", path)
      const text = await res.text()
      expect([path, res.status >= 400]).toEqual([path, true])
      expect(text).not.toContain(SECRET)
      expect(text).not.toContain("root:x:0:0")
    }
    const listed = await jsonOf(await call("GET", base))
    expect(listed.body.entries.filter((e: any) => e.kind === "link").map((e: any) => [e.name, e.target])).toEqual([
      ["to-host", host],
      ["to-secret", `${host}/secret`],
    ])
    for (const path of ["to-secret", "to-host/new"])
      expect((await call("PUT", `${base}/text`, { path, text: "written" })).status).toBeGreaterThanOrEqual(400)
    const tar = await makeTar([
      { name: "escape", type: "symlink", linkname: host },
      { name: "escape/x", content: "x" },
    ])
    const up = await call("POST", `${base}/archive?path=up`, tar, { "content-type": "application/x-tar" })
    expect([up.status >= 400, up.status < 500]).toEqual([true, true])
    expect((await call("DELETE", `${base}?path=to-host`)).status).toBe(200)
    hostUntouched()
  })

  test("a folder's tar whose tar fails midway on the node reaches the client as an aborted answer", async () => {
    await inVolume(volume, "mkdir /v/cut-gw-tar && head -c 268435456 /dev/urandom > /v/cut-gw-tar/big")
    const res = await call("GET", `${base}/archive?path=cut-gw-tar`)
    expect(res.status).toBe(200)
    process.kill(await waitForProcess("tar", "cut-gw-tar"), "SIGKILL")
    const body = await received(res)
    expect(body.cut).toBe(true)
    expect(body.bytes).toBeLessThan(2 ** 28)
  })
})

describe("a node's container through the gateway", () => {
  const name = "hm-gwfiles-box"
  const base = `node:/api/containers/${name}/files`

  beforeAll(async () => {
    await runContainer(
      engine,
      name,
      `mkdir -p /data && echo 'a: 1' > /data/app.yaml && ln -s ${host}/secret /data/to-secret && ln -s ${host} /data/to-host && touch /ready && sleep 3600`,
    )
    for (let i = 0; i < 100 && (await call("GET", `${base}/content?path=ready`)).status !== 200; i++)
      await Bun.sleep(100)
  })

  test("listed, read, edited with its version, a tar uploaded and downloaded; links never followed", async () => {
    expect((await call("GET", `/api/containers/${name}/files`)).status).toBe(404)
    const listed = await jsonOf(await call("GET", `${base}?path=/data`))
    expect(listed.body.entries.map((e: any) => [e.name, e.kind, e.target ?? null])).toEqual([
      ["app.yaml", "file", null],
      ["to-host", "link", host],
      ["to-secret", "link", `${host}/secret`],
    ])
    const read = await jsonOf(await call("GET", `${base}/text?path=data/app.yaml`))
    expect(
      (await call("PUT", `${base}/text`, { path: "data/app.yaml", text: "a: 2\n", version: read.body.version })).status,
    ).toBe(200)
    const stale = await call("PUT", `${base}/text`, {
      path: "data/app.yaml",
      text: "a: 3\n",
      version: read.body.version,
    })
    expect(stale.status).toBe(409)
    const tar = await makeTar([{ name: "up/one.txt", content: "uploaded" }])
    expect((await call("POST", `${base}/archive?path=data`, tar, { "content-type": "application/x-tar" })).status).toBe(
      201,
    )
    expect(await (await call("GET", `${base}/content?path=data/up/one.txt`)).text()).toBe("uploaded")
    const archive = new Uint8Array(await (await call("GET", `${base}/archive?path=data`)).arrayBuffer())
    expect(Buffer.from(archive).includes("uploaded")).toBe(true)
    expect(Buffer.from(archive).includes(SECRET)).toBe(false)
    for (const path of [
      "data/to-secret",
      "data/to-host/secret",
      `../../../..${host}/secret`,
      "data/../../../../etc/passwd",
    ]) {
      const res = await call("GET", `${base}/content?path=${encodeURIComponent(path)}`)
      const text = await res.text()
      expect([path, res.status >= 400]).toEqual([path, true])
      expect(text).not.toContain(SECRET)
    }
    for (const path of ["data/to-secret", "data/to-host/new"])
      expect((await call("PUT", `${base}/text`, { path, text: "written" })).status).toBeGreaterThanOrEqual(400)
    for (const role of ["operator", "viewer"] as const)
      expect((await call("GET", `${base}?path=/data`, undefined, { cookie: on[role] })).status).toBe(403)
    hostUntouched()
  })
})

test("a node's host terminal through the gateway: the admin's command runs on the node, its process tree goes when the socket closes; an operator is refused", async () => {
  const url = `${cp.url.replace("http:", "ws:")}/api/nodes/m1/proxy/api/host/shell?cols=90&rows=20`
  const t = await terminal(url, { headers: { cookie: on.admin, origin: cp.url } })
  await t.prompt()
  t.type("stty size; echo shell=$$; nohup sleep 600 >/dev/null 2>&1 & echo pid=$!\r")
  expect((await t.waitFor(/\b20 90\b/))[0]).toBe("20 90")
  const shell = Number((await t.waitFor(/shell=(\d+)/))[1])
  const left = Number((await t.waitFor(/pid=(\d+)/))[1])
  // The node's shell: a process below the member's service, none of the control plane's.
  expect(ancestors(shell)).toContain(member.proc.pid)
  expect(ancestors(shell)).not.toContain(cp.proc.pid)
  expect(alive(left)).toBe(true)
  t.ws.close()
  for (let i = 0; i < 200 && alive(left); i++) await Bun.sleep(100)
  expect(alive(left)).toBe(false)
  const audit = async () =>
    (await jsonOf(await call("GET", "/api/audit?user=root", undefined, { cookie: on.member }, member.url))).body.entries
      .filter((e: any) => e.via === cpId && e.route === "/api/host/shell")
      .map((e: any) => e.action)
  for (let i = 0; i < 100 && !(await audit()).includes("ws.close"); i++) await Bun.sleep(50)
  expect(await audit()).toEqual(expect.arrayContaining(["ws.open", "ws.close"]))

  const upgrade = {
    connection: "Upgrade",
    upgrade: "websocket",
    "sec-websocket-version": "13",
    "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
    origin: cp.url,
  }
  const asOperator = await fetch(`${cp.url}/api/nodes/m1/proxy/api/host/shell`, {
    headers: { ...upgrade, cookie: on.operator },
  })
  expect(asOperator.status).toBe(403)
  // The control plane's own host allows none.
  const own = await fetch(`${cp.url}/api/host/shell`, { headers: { ...upgrade, cookie: on.admin } })
  expect(own.status).toBe(404)
}, 60_000)

test("1 GiB goes down and up through the gateway streamed: a reader that stops makes neither server hold it", async () => {
  const volume = "hm-gwfiles-large"
  await engine.createVolume(volume, { [TEST_LABEL]: "1" })
  await inVolume(volume, "head -c 1073741824 /dev/urandom > /v/big")
  const { Mountpoint } = await engine.inspectVolume(volume)
  const onDisk = createHash("sha256")
  for await (const chunk of createReadStream(join(Mountpoint, "big"))) onDisk.update(chunk)
  const digest = onDisk.digest("hex")

  const before = { cp: rssOf(cp), member: rssOf(member) }
  const peak = { ...before }
  const watch = setInterval(() => {
    peak.cp = Math.max(peak.cp, rssOf(cp))
    peak.member = Math.max(peak.member, rssOf(member))
  }, 50)
  try {
    const down = await call("GET", `node:/api/volumes/${volume}/files/content?path=big`)
    expect(down.status).toBe(200)
    const reader = down.body!.getReader()
    const hash = createHash("sha256")
    let size = 0
    let paused = false
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      hash.update(value)
      size += value.length
      // A client that stops reading for a while: what the node sends meanwhile may not pile up on the way.
      if (!paused && size > 2 ** 27) {
        paused = true
        await Bun.sleep(3000)
      }
    }
    expect(size).toBe(2 ** 30)
    expect(hash.digest("hex")).toBe(digest)

    const up = await call(
      "PUT",
      `node:/api/volumes/${volume}/files/content?path=copy`,
      Bun.file(join(Mountpoint, "big")),
    )
    expect(up.status).toBe(200)
  } finally {
    clearInterval(watch)
  }
  const copy = createHash("sha256")
  for await (const chunk of createReadStream(join(Mountpoint, "copy"))) copy.update(chunk)
  expect(copy.digest("hex")).toBe(digest)
  const mib = (n: number) => (n / 2 ** 20).toFixed(1)
  console.log(
    `RSS control plane ${mib(before.cp)} -> peak ${mib(peak.cp)} MiB, member ${mib(before.member)} -> peak ${mib(peak.member)} MiB`,
  )
  expect(peak.cp - before.cp).toBeLessThan(100 * 2 ** 20)
  expect(peak.member - before.member).toBeLessThan(100 * 2 ** 20)
}, 300_000)
