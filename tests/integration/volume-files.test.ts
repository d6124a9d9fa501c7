// A volume's files against the real engines, both ways the service reaches them: the volume's own
// folder (a plain local volume: the test engines are proved local, the service being root) and
// helper containers (a volume with driver options, a bind here, which is never read from its folder). A folder
// of the test's own stands in for the host: no link a container plants may lead the service there.
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { createHash, randomBytes } from "node:crypto"
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Engine } from "#lib/engine/client.ts"
import { cleanup, engineHost, realEngine, runContainer, TEST_LABEL, testImage } from "../support/engine.ts"
import { cutUpload } from "../support/cut-upload.ts"
import { waitForProcess } from "../support/procs.ts"
import { startService, type Service } from "../support/service.ts"

let engine: Engine
let svc: Service
/** Stands in for the host: its secret must never be read, nothing may be written into it. */
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

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const json = body !== undefined && !(body instanceof Uint8Array) && !(body instanceof ReadableStream)
  const res = await fetch(`${svc.url}${path}`, {
    method,
    headers: { ...(json && { "content-type": "application/json" }), ...headers },
    body: json ? JSON.stringify(body) : (body as BodyInit | undefined),
  })
  return res
}
const jsonOf = async (res: Response) => ({ status: res.status, body: (await res.json()) as any })

/** The bytes of a body as text, as far as they came: a download the service cut short (its tool failed midway) ends the text there. */
async function received(res: Response): Promise<{ text: string; cut: boolean }> {
  const decoder = new TextDecoder()
  let text = ""
  try {
    for await (const chunk of res.body!) text += decoder.decode(chunk, { stream: true })
    return { text: text + decoder.decode(), cut: false }
  } catch {
    return { text: text + decoder.decode(), cut: true }
  }
}

/** Runs `script` once in a container binding the volume at /v, and waits for it. */
async function inVolume(volume: string, script: string): Promise<void> {
  const id = await runContainer(engine, `hm-files-${Math.random().toString(36).slice(2, 8)}`, script, {
    HostConfig: { Mounts: [{ Type: "volume", Source: volume, Target: "/v" }] },
  })
  const { StatusCode } = await engine.waitContainer(id)
  expect(StatusCode).toBe(0)
  await engine.removeContainer(id, { force: true })
}

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex")

/** What a write leaves while it runs: a file staged in the volume's root (.hm-...), an upload received into the data directory. */
async function leftovers(base: string): Promise<string[]> {
  const listed = await jsonOf(await call("GET", base))
  const staged = listed.body.entries.map((e: any) => e.name as string).filter((n: string) => n.startsWith(".hm-"))
  const uploads = join(svc.dataDir, "uploads")
  return [...staged, ...(existsSync(uploads) ? readdirSync(uploads) : [])]
}

const hostUntouched = () => {
  expect(readdirSync(host)).toEqual(["secret"])
  expect(readFileSync(join(host, "secret"), "utf8")).toBe(SECRET)
}

const kinds = [
  { way: "its own folder", make: (name: string) => engine.createVolume(name, { [TEST_LABEL]: "1" }) },
  // A bind of a folder of its own: a volume with driver options is never read from its folder here.
  {
    way: "helper containers",
    make: (name: string) =>
      engine.createVolume(
        name,
        { [TEST_LABEL]: "1" },
        { Driver: "local", DriverOpts: { type: "none", o: "bind", device: mkdtempSync(join(tmpdir(), "hm-bound-")) } },
      ),
  },
]

describe.each(kinds)("a volume through $way", ({ way, make }) => {
  const volume = `hm-files-${way.split(" ")[0]}`
  const base = `/api/volumes/${volume}/files`

  beforeAll(async () => {
    await make(volume)
  })

  test("nested folders are made, filled, listed, downloaded as a tar and uploaded back", async () => {
    expect((await call("POST", `${base}/folder`, { path: "a" })).status).toBe(201)
    expect((await call("POST", `${base}/folder`, { path: "a/b" })).status).toBe(201)
    const put = await call("PUT", `${base}/content?path=a/b/c.txt`, new TextEncoder().encode("deep\n"))
    expect(put.status).toBe(200)
    const listed = await jsonOf(await call("GET", `${base}?path=a/b`))
    expect(listed.body.entries).toMatchObject([{ name: "c.txt", kind: "file", size: 5, mode: "0644" }])
    const tar = new Uint8Array(await (await call("GET", `${base}/archive?path=a`)).arrayBuffer())
    expect((await call("POST", `${base}/folder`, { path: "copy" })).status).toBe(201)
    const up = await call("POST", `${base}/archive?path=copy`, tar, { "content-type": "application/x-tar" })
    expect(up.status).toBe(201)
    expect(await (await call("GET", `${base}/content?path=copy/a/b/c.txt`)).text()).toBe("deep\n")
    const again = await call("POST", `${base}/archive?path=copy`, tar, { "content-type": "application/x-tar" })
    expect(again.status).toBe(409)
    expect((await call("POST", `${base}/rename`, { from: "copy/a", to: "moved" })).status).toBe(200)
    expect((await call("DELETE", `${base}?path=copy`)).status).toBe(200)
    const root = await jsonOf(await call("GET", base))
    expect(root.body.entries.map((e: any) => e.name)).toEqual(["a", "moved"])
  })

  test("names with newlines, quotes and invalid UTF-8 are listed with their bytes and read by them", async () => {
    await inVolume(volume, `mkdir -p /v/odd && printf 'x' > "/v/odd/$(printf 'q"\\n\\377\\047;')"`)
    const listed = await jsonOf(await call("GET", `${base}?path=odd`))
    const [entry] = listed.body.entries
    expect(Buffer.from(entry.name64, "base64url")).toEqual(Buffer.from([0x71, 0x22, 0x0a, 0xff, 0x27, 0x3b]))
    const res = await call("GET", `${base}/content?path64=${Buffer.from(`odd/`).toString("base64url")}${""}`)
    expect(res.status).toBe(400) // a folder is not a file
    const path64 = Buffer.concat([Buffer.from("odd/"), Buffer.from(entry.name64, "base64url")]).toString("base64url")
    expect(await (await call("GET", `${base}/content?path64=${path64}`)).text()).toBe("x")
  })

  test("links out of the volume are shown as links and never followed", async () => {
    await inVolume(volume, `ln -s ${host}/secret /v/to-secret && ln -s ${host} /v/to-host && ln -s /etc /v/to-etc`)
    const listed = await jsonOf(await call("GET", base))
    const links = listed.body.entries.filter((e: any) => e.kind === "link")
    expect(links.map((e: any) => [e.name, e.target])).toEqual([
      ["to-etc", "/etc"],
      ["to-host", host],
      ["to-secret", `${host}/secret`],
    ])
    for (const path of ["to-secret", "to-host/secret", "to-etc/passwd"]) {
      const read = await call("GET", `${base}/content?path=${path}`)
      expect(read.status).toBeGreaterThanOrEqual(400)
      expect(await read.text()).not.toContain(SECRET)
    }
    for (const path of ["to-secret", "to-host/new"])
      expect((await call("PUT", `${base}/text`, { path, text: "written" })).status).toBeGreaterThanOrEqual(400)
    // Refused where the link is seen (400), or not found where the helper cannot see where it leads (404).
    expect([400, 404]).toContain((await call("GET", `${base}?path=to-host`)).status)
    expect((await call("DELETE", `${base}?path=to-host`)).status).toBe(200)
    hostUntouched()
  })

  test("an edit that conflicts with a change made meanwhile is refused, and the change stays", async () => {
    expect((await call("PUT", `${base}/text`, { path: "conf.ini", text: "[a]\nx=1\n" })).status).toBe(200)
    const read = await jsonOf(await call("GET", `${base}/text?path=conf.ini`))
    await inVolume(volume, "echo 'x=2' >> /v/conf.ini")
    const stale = await jsonOf(
      await call("PUT", `${base}/text`, { path: "conf.ini", text: "[a]\nx=3\n", version: read.body.version }),
    )
    expect(stale).toMatchObject({ status: 409, body: { error: { code: "file_changed" } } })
    expect(await (await call("GET", `${base}/content?path=conf.ini`)).text()).toBe("[a]\nx=1\nx=2\n")
  })

  test("a file sent without its length is written whole; a client gone before its body ended leaves the old file", async () => {
    const data = randomBytes(3 * 2 ** 20 + 17)
    const chunks = Array.from({ length: Math.ceil(data.length / 2 ** 16) }, (_, i) =>
      data.subarray(i * 2 ** 16, (i + 1) * 2 ** 16),
    )
    // A stream for a body: fetch sends it chunked, with no Content-Length.
    const body = new ReadableStream<Uint8Array>({
      pull: (c) => (chunks.length ? c.enqueue(chunks.shift()!) : c.close()),
    })
    expect((await call("PUT", `${base}/content?path=sent.bin`, body)).status).toBe(200)
    const back = new Uint8Array(await (await call("GET", `${base}/content?path=sent.bin`)).arrayBuffer())
    expect(sha256(back)).toBe(sha256(data))
    for (const length of [undefined, data.length]) {
      await cutUpload(svc.url, "PUT", `${base}/content?path=sent.bin`, data.subarray(0, 2 ** 20), length)
      // Done with the cut request once nothing of it is left: no file staged in the volume, none received for it.
      for (let i = 0; i < 300 && (await leftovers(base)).length; i++) await Bun.sleep(100)
      expect(await leftovers(base)).toEqual([])
      const kept = new Uint8Array(await (await call("GET", `${base}/content?path=sent.bin`)).arrayBuffer())
      expect(sha256(kept)).toBe(sha256(data))
    }
  })

  test("a folder's tar whose tar fails midway ends the download as an error, never as a tar that looks whole", async () => {
    await inVolume(volume, "mkdir /v/cut-tar && head -c 268435456 /dev/urandom > /v/cut-tar/big")
    const res = await call("GET", `${base}/archive?path=cut-tar`)
    expect(res.status).toBe(200)
    // tar waits on the answer nobody reads yet; killed there (as the kernel's OOM killer would).
    process.kill(await waitForProcess("tar", "cut-tar"), "SIGKILL")
    const body = await received(res)
    expect(body.cut).toBe(true)
    await inVolume(volume, "rm -r /v/cut-tar")
  })

  test("a container racing folders and files against links while they are read and written: nothing outside is read or written", async () => {
    const racer = await runContainer(
      engine,
      `hm-racer-${way.split(" ")[0]}`,
      `cd /v && mkdir -p r.real && echo inside > r.real/f && while :; do mv r.real r 2>/dev/null; mv r r.real 2>/dev/null; ln -s ${host} r 2>/dev/null; rm -f r 2>/dev/null; mv r.real/f r.real/g 2>/dev/null; ln -s ${host}/secret r.real/f 2>/dev/null; rm -f r.real/f; mv r.real/g r.real/f 2>/dev/null; done`,
      { HostConfig: { Mounts: [{ Type: "volume", Source: volume, Target: "/v" }] } },
    )
    const seen: string[] = []
    const until = Date.now() + 6000
    let rounds = 0
    let cut = 0
    while (Date.now() < until) {
      rounds++
      const results = await Promise.all([
        call("GET", `${base}/content?path=r/f`),
        call("GET", `${base}/content?path=r.real/f`),
        call("GET", `${base}?path=r`),
        call("GET", `${base}/archive?path=r`),
        call("PUT", `${base}/text`, { path: "r/written", text: "from the service" }),
        call("PUT", `${base}/text`, { path: "r.real/f", text: "over the file" }),
      ])
      // A folder's tar or a file changed under the tool after its first byte went out is cut short; what came is checked too.
      for (const res of results) {
        const body = await received(res)
        seen.push(body.text)
        if (body.cut) cut++
      }
    }
    await engine.removeContainer(racer, { force: true })
    expect(rounds).toBeGreaterThan(1)
    expect(cut).toBeLessThan(seen.length)
    expect(seen.some((s) => s.includes(SECRET))).toBe(false)
    hostUntouched()
  })
})

test("100,000 small files are listed in pages, sorted by name", async () => {
  const volume = "hm-files-many"
  await engine.createVolume(volume, { [TEST_LABEL]: "1" })
  await inVolume(volume, "mkdir /v/many && cd /v/many && seq -w 1 100000 | xargs touch")
  const first = await jsonOf(await call("GET", `/api/volumes/${volume}/files?path=many&limit=1000`))
  expect(first.body.total).toBe(100000)
  expect(first.body.entries[0].name).toBe("000001")
  expect(first.body.entries[999].name).toBe("001000")
  const last = await jsonOf(await call("GET", `/api/volumes/${volume}/files?path=many&offset=99500&limit=1000`))
  expect(last.body.entries.length).toBe(500)
  expect(last.body.entries.at(-1).name).toBe("100000")
})

test("1 GiB goes down and up streamed, the service's memory growing by less than 100 MiB", async () => {
  const volume = "hm-files-large"
  await engine.createVolume(volume, { [TEST_LABEL]: "1" })
  await inVolume(volume, "head -c 1073741824 /dev/urandom > /v/big")
  // A service of its own, which has done nothing else: what is measured is what the transfer costs.
  const first = svc
  svc = await startService({ DOCKER_HOST: engineHost("a"), SVC_TRANSFER_IMAGE: testImage() })
  await first.stop()
  const rss = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${svc.proc.pid}/status`, "utf8"))![1]) * 1024
  // What it holds before the transfer (its code and what it set up at start) is not the transfer's cost.
  const before = rss()
  let peak = before
  const watch = setInterval(() => (peak = Math.max(peak, rss())), 50)
  try {
    const down = await call("GET", `/api/volumes/${volume}/files/content?path=big`)
    const hash = createHash("sha256")
    let size = 0
    for await (const chunk of down.body!) {
      hash.update(chunk)
      size += chunk.length
    }
    expect(size).toBe(1 << 30)
    const digest = hash.digest("hex")
    // Up again as a client sends a file, streamed from the bytes the container wrote.
    const { Mountpoint } = await engine.inspectVolume(volume)
    const up = await fetch(`${svc.url}/api/volumes/${volume}/files/content?path=copy`, {
      method: "PUT",
      body: Bun.file(join(Mountpoint, "big")),
    })
    expect(up.status).toBe(200)
    const check = await call("GET", `/api/volumes/${volume}/files/content?path=copy`)
    const h2 = createHash("sha256")
    for await (const chunk of check.body!) h2.update(chunk)
    expect(h2.digest("hex")).toBe(digest)
  } finally {
    clearInterval(watch)
  }
  console.log(`RSS ${(before / 2 ** 20).toFixed(1)} MiB before, peak ${(peak / 2 ** 20).toFixed(1)} MiB`)
  expect(peak - before).toBeLessThan(100 * 2 ** 20)
}, 300_000)
