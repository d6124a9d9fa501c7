// A container's files through the archive API on the real engines, running and stopped: listing,
// reading, editing with the version check, a tar uploaded, links shown and never followed, and what
// changed against the image.
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { createHash, randomBytes } from "node:crypto"
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Engine } from "#lib/engine/client.ts"
import { cleanup, engineHost, realEngine, runContainer, testImage } from "../support/engine.ts"
import { cutUpload } from "../support/cut-upload.ts"
import { startService, type Service } from "../support/service.ts"
import { makeTar } from "../support/tar.ts"

let engine: Engine
let svc: Service
const host = mkdtempSync(join(tmpdir(), "hm-host-"))
const SECRET = "host secret, never to be read"
writeFileSync(join(host, "secret"), SECRET)

beforeAll(async () => {
  engine = realEngine()
  await cleanup(engine)
  svc = await startService({ DOCKER_HOST: engineHost("a"), SVC_TRANSFER_IMAGE: testImage() })
})
afterAll(async () => {
  await svc?.stop()
  await cleanup(engine)
  rmSync(host, { recursive: true, force: true })
})

const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
  const json = body !== undefined && !(body instanceof Uint8Array) && !(body instanceof ReadableStream)
  return fetch(`${svc.url}${path}`, {
    method,
    headers: { ...(json && { "content-type": "application/json" }), ...headers },
    body: json ? JSON.stringify(body) : (body as BodyInit | undefined),
  })
}
const jsonOf = async (res: Response) => ({ status: res.status, body: (await res.json()) as any })

describe.each(["running", "stopped"])("a %s container", (state) => {
  const name = `hm-cfiles-${state}`
  const base = `/api/containers/${name}/files`

  beforeAll(async () => {
    await runContainer(
      engine,
      name,
      `mkdir -p /data/sub && echo 'a: 1' > /data/app.yaml && ln -s ${host}/secret /data/to-secret && ln -s ${host} /data/to-host && touch /ready && sleep 3600`,
    )
    for (let i = 0; i < 100 && (await call("GET", `${base}/content?path=ready`)).status !== 200; i++)
      await Bun.sleep(100)
    if (state === "stopped") await engine.containerAction(name, "stop")
  })

  test("a folder is listed from the archive, links shown as links", async () => {
    const { status, body } = await jsonOf(await call("GET", `${base}?path=/data`))
    expect(status).toBe(200)
    expect(body.entries.map((e: any) => [e.name, e.kind, e.target ?? null])).toEqual([
      ["sub", "folder", null],
      ["app.yaml", "file", null],
      ["to-host", "link", host],
      ["to-secret", "link", `${host}/secret`],
    ])
    const root = await jsonOf(await call("GET", base))
    expect(root.body.entries.map((e: any) => e.name)).toContain("bin")
  })

  test("links are never followed out of the container", async () => {
    for (const path of ["data/to-secret", "data/to-host/secret"]) {
      const res = await call("GET", `${base}/content?path=${path}`)
      expect(res.status).toBeGreaterThanOrEqual(400)
      expect(await res.text()).not.toContain(SECRET)
    }
    const tar = await call("GET", `${base}/archive?path=data/to-host`)
    expect(await tar.text()).not.toContain(SECRET)
  })

  test("a file sent without its length is written whole; a client gone before its body ended leaves the old file", async () => {
    const data = randomBytes(3 * 2 ** 20 + 17)
    // A stream for a body: fetch sends it chunked, with no Content-Length.
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        for (let at = 0; at < data.length; at += 2 ** 16) c.enqueue(data.subarray(at, at + 2 ** 16))
        c.close()
      },
    })
    expect((await call("PUT", `${base}/content?path=data/sent.bin`, body)).status).toBe(200)
    const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex")
    const back = async () =>
      sha256(new Uint8Array(await (await call("GET", `${base}/content?path=data/sent.bin`)).arrayBuffer()))
    expect(await back()).toBe(sha256(data))
    const uploads = join(svc.dataDir, "uploads")
    const received = () => (existsSync(uploads) ? readdirSync(uploads) : [])
    for (const length of [undefined, data.length]) {
      await cutUpload(svc.url, "PUT", `${base}/content?path=data/sent.bin`, data.subarray(0, 2 ** 20), length)
      // Done with the cut request once what it received is gone.
      for (let i = 0; i < 300 && received().length; i++) await Bun.sleep(100)
      expect(received()).toEqual([])
      expect(await back()).toBe(sha256(data))
    }
  })

  test("a text file is edited with its version, a stale version refused; a tar is uploaded; the diff shows both", async () => {
    const read = await jsonOf(await call("GET", `${base}/text?path=data/app.yaml`))
    expect(read.body.text).toBe("a: 1\n")
    const saved = await call("PUT", `${base}/text`, {
      path: "data/app.yaml",
      text: "a: 2\n",
      version: read.body.version,
    })
    expect(saved.status).toBe(200)
    const stale = await call("PUT", `${base}/text`, {
      path: "data/app.yaml",
      text: "a: 3\n",
      version: read.body.version,
    })
    expect(stale.status).toBe(409)
    expect(await (await call("GET", `${base}/content?path=data/app.yaml`)).text()).toBe("a: 2\n")
    const tar = await makeTar([{ name: "up/one.txt", content: "uploaded" }])
    expect(
      (await call("POST", `${base}/archive?path=data/sub`, tar, { "content-type": "application/x-tar" })).status,
    ).toBe(201)
    expect(await (await call("GET", `${base}/content?path=data/sub/up/one.txt`)).text()).toBe("uploaded")
    const changes = await jsonOf(await call("GET", `/api/containers/${name}/changes`))
    expect(changes.body).toContainEqual({ path: "/data/sub/up/one.txt", kind: "added" })
    expect(changes.body).toContainEqual({ path: "/data/app.yaml", kind: "added" })
    expect(readdirSync(host)).toEqual(["secret"])
  })
})
