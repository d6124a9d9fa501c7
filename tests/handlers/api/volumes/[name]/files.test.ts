// The volume file routes over a volume's own folder (a temp folder here, as root): listing, reading,
// writing with the version check, tar out and in, folders, renames, removals, hostile names and links.
import { afterAll, afterEach, beforeEach, expect, test } from "bun:test"
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync, lstatSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Readable } from "node:stream"
import { pack } from "tar-stream"
import { localFiles } from "#lib/files/local.ts"
import { makeTar } from "../../../../support/tar.ts"
import { testApp, type TestApp } from "../../../../support/app.ts"

let t: TestApp
let root: string
const outside = mkdtempSync(join(tmpdir(), "hm-outside-"))
writeFileSync(join(outside, "secret"), "host secret")

beforeEach(async () => {
  root = mkdtempSync(join(tmpdir(), "hm-volume-"))
  t = await testApp({
    files: { volume: async () => localFiles(root), container: async () => localFiles(root) },
  })
})
afterEach(() => {
  t.close()
  rmSync(root, { recursive: true, force: true })
})
afterAll(() => rmSync(outside, { recursive: true, force: true }))

const q = (path: string) => encodeURIComponent(path)
const json = async (res: Response) => ({ status: res.status, body: (await res.json()) as any })

test("a folder is listed with its entries' kind, size, mode, owner and time, folders first, then paged", async () => {
  mkdirSync(join(root, "conf"))
  writeFileSync(join(root, "b.txt"), "bb")
  writeFileSync(join(root, "a.txt"), "a", { mode: 0o640 })
  symlinkSync("/etc/passwd", join(root, "link"))
  const { status, body } = await json(await t.call("GET", "/api/volumes/data/files"))
  expect(status).toBe(200)
  expect(body.total).toBe(4)
  expect(body.entries.map((e: any) => [e.name, e.kind])).toEqual([
    ["conf", "folder"],
    ["a.txt", "file"],
    ["b.txt", "file"],
    ["link", "link"],
  ])
  expect(body.entries[1]).toMatchObject({ size: 1, mode: "0640", uid: 0, gid: 0 })
  expect(body.entries[3].target).toBe("/etc/passwd")
  const page = await json(await t.call("GET", "/api/volumes/data/files?offset=1&limit=2&sort=size&order=desc"))
  expect(page.body.entries.map((e: any) => e.name)).toEqual(["link", "b.txt"])
  expect(page.body).toMatchObject({ offset: 1, limit: 2, total: 4 })
})

test("names with newlines, quotes and invalid UTF-8 are listed with their bytes, and read, renamed and removed by them", async () => {
  const odd = Buffer.from([0x71, 0x22, 0x0a, 0xff, 0x27, 0x3b])
  writeFileSync(Buffer.concat([Buffer.from(`${root}/`), odd]), "odd bytes")
  const { body } = await json(await t.call("GET", "/api/volumes/data/files"))
  const [entry] = body.entries
  expect(entry.name64).toBe(odd.toString("base64url"))
  expect(entry.name).toBe("q\"\n\uFFFD';")
  const res = await t.call("GET", `/api/volumes/data/files/content?path64=${entry.name64}&download=true`)
  expect(await res.text()).toBe("odd bytes")
  expect(res.headers.get("content-disposition")).toStartWith('attachment; filename="q__')
  expect(res.headers.get("content-disposition")).not.toContain("\n")
  const renamed = await t.call("POST", "/api/volumes/data/files/rename", { from64: entry.name64, to: "plain" })
  expect(renamed.status).toBe(200)
  expect(readFileSync(join(root, "plain"), "utf8")).toBe("odd bytes")
  expect((await t.call("DELETE", "/api/volumes/data/files?path=plain")).status).toBe(200)
  expect(statSync(root).nlink).toBe(2)
})

test("a link is shown, never followed: not read, not written through, not listed into", async () => {
  symlinkSync(join(outside, "secret"), join(root, "to-file"))
  symlinkSync(outside, join(root, "to-folder"))
  const read = await json(await t.call("GET", "/api/volumes/data/files/content?path=to-file"))
  expect(read).toMatchObject({ status: 400, body: { error: { code: "not_a_file" } } })
  for (const path of ["to-folder/secret", "to-folder"]) {
    const res = await json(await t.call("GET", `/api/volumes/data/files/text?path=${q(path)}`))
    expect(res.status).toBe(400)
  }
  const list = await json(await t.call("GET", "/api/volumes/data/files?path=to-folder"))
  expect(list).toMatchObject({ status: 400, body: { error: { code: "link_in_path" } } })
  const write = await t.call("PUT", "/api/volumes/data/files/text", { path: "to-folder/secret", text: "owned" })
  expect(write.status).toBe(400)
  const over = await t.call("PUT", "/api/volumes/data/files/text", { path: "to-file", text: "owned" })
  expect(over.status).toBe(400)
  expect(readFileSync(join(outside, "secret"), "utf8")).toBe("host secret")
  expect((await t.call("DELETE", "/api/volumes/data/files?path=to-folder")).status).toBe(200)
  expect(readFileSync(join(outside, "secret"), "utf8")).toBe("host secret")
  expect(lstatSync(join(root, "to-file")).isSymbolicLink()).toBe(true)
})

test("a text edit is checked against the version it was read at: a change meanwhile is a 409 and nothing is written", async () => {
  writeFileSync(join(root, "app.yaml"), "a: 1\n", { mode: 0o600 })
  const read = await json(await t.call("GET", "/api/volumes/data/files/text?path=app.yaml"))
  expect(read.body).toMatchObject({ path: "app.yaml", text: "a: 1\n", size: 5 })
  const saved = await json(
    await t.call("PUT", "/api/volumes/data/files/text", {
      path: "app.yaml",
      text: "a: 2\n",
      version: read.body.version,
    }),
  )
  expect(saved.status).toBe(200)
  expect(statSync(join(root, "app.yaml")).mode & 0o777).toBe(0o600)
  writeFileSync(join(root, "app.yaml"), "a: 3\n")
  const stale = await json(
    await t.call("PUT", "/api/volumes/data/files/text", {
      path: "app.yaml",
      text: "a: 4\n",
      version: saved.body.version,
    }),
  )
  expect(stale).toMatchObject({ status: 409, body: { error: { code: "file_changed" } } })
  expect(readFileSync(join(root, "app.yaml"), "utf8")).toBe("a: 3\n")
  expect(require("node:fs").readdirSync(root)).toEqual(["app.yaml"])
})

test("the editor refuses binary and large files with a clear error", async () => {
  writeFileSync(join(root, "bin"), Buffer.from([0xff, 0xfe, 0]))
  writeFileSync(join(root, "big"), Buffer.alloc(3 * 1024 * 1024, 0x61))
  expect(await json(await t.call("GET", "/api/volumes/data/files/text?path=bin"))).toMatchObject({
    status: 415,
    body: { error: { code: "not_text" } },
  })
  expect(await json(await t.call("GET", "/api/volumes/data/files/text?path=big"))).toMatchObject({
    status: 413,
    body: { error: { code: "file_too_large" } },
  })
})

test("a file uploaded as the body replaces the old one whole, keeping its owner; a new one takes its folder's owner", async () => {
  mkdirSync(join(root, "d"))
  require("node:fs").chownSync(join(root, "d"), 1234, 1234)
  writeFileSync(join(root, "d", "old"), "old")
  require("node:fs").chownSync(join(root, "d", "old"), 999, 998)
  const put = (path: string, body: string) =>
    t.call("PUT", `/api/volumes/data/files/content?path=${q(path)}`, body, {
      "content-type": "application/octet-stream",
    })
  expect((await put("d/old", "new content")).status).toBe(200)
  expect((await put("d/new", "fresh")).status).toBe(200)
  expect(readFileSync(join(root, "d", "old"), "utf8")).toBe("new content")
  expect(statSync(join(root, "d", "old"))).toMatchObject({ uid: 999, gid: 998 })
  expect(statSync(join(root, "d", "new"))).toMatchObject({ uid: 1234, gid: 1234 })
  expect((await put("missing/x", "x")).status).toBe(404)
})

test("a folder goes out as a tar and a tar comes in: into a folder, never over what is there, all or nothing", async () => {
  mkdirSync(join(root, "src", "deep"), { recursive: true })
  writeFileSync(join(root, "src", "deep", "f"), "deep file")
  const tar = await t.call("GET", "/api/volumes/data/files/archive?path=src")
  expect(tar.headers.get("content-type")).toBe("application/x-tar")
  const bytes = new Uint8Array(await tar.arrayBuffer())
  mkdirSync(join(root, "dst"))
  const up = (path: string) =>
    t.call("POST", `/api/volumes/data/files/archive?path=${path}`, bytes, { "content-type": "application/x-tar" })
  expect((await up("dst")).status).toBe(201)
  expect(readFileSync(join(root, "dst", "src", "deep", "f"), "utf8")).toBe("deep file")
  const again = await json(await up("dst"))
  expect(again).toMatchObject({ status: 409, body: { error: { code: "file_exists" } } })
  expect(require("node:fs").readdirSync(join(root, "dst"))).toEqual(["src"])
})

test("an uploaded tar that points outside the folder or holds a device is refused and leaves nothing", async () => {
  const device = pack()
  device.entry({ name: "ok" }, "fine")
  device.entry({ name: "sda", type: "block-device", devmajor: 8, devminor: 0 })
  device.finalize()
  const tars = [
    await makeTar([
      { name: "ok", content: "fine" },
      { name: "../escape", content: "x" },
    ]),
    await makeTar([
      { name: "ok", content: "fine" },
      { name: "/abs", content: "x" },
    ]),
    new Uint8Array(await new Response(Readable.toWeb(Readable.from(device as any)) as any).arrayBuffer()),
  ]
  for (const tar of tars) {
    const res = await t.call("POST", "/api/volumes/data/files/archive", tar, {
      "content-type": "application/x-tar",
    })
    expect(res.status).toBe(400)
    expect(require("node:fs").readdirSync(root)).toEqual([])
  }
})

test("folders are made, renamed and removed with everything below; taken names and the root are refused", async () => {
  expect((await t.call("POST", "/api/volumes/data/files/folder", { path: "a/b" })).status).toBe(404)
  expect((await t.call("POST", "/api/volumes/data/files/folder", { path: "a" })).status).toBe(201)
  expect((await t.call("POST", "/api/volumes/data/files/folder", { path: "a" })).status).toBe(409)
  writeFileSync(join(root, "a", "f"), "f")
  expect((await t.call("POST", "/api/volumes/data/files/rename", { from: "a", to: "a/inside" })).status).toBe(400)
  expect((await t.call("POST", "/api/volumes/data/files/rename", { from: "a", to: "b" })).status).toBe(200)
  expect(readFileSync(join(root, "b", "f"), "utf8")).toBe("f")
  expect((await t.call("DELETE", "/api/volumes/data/files?path=")).status).toBe(400)
  expect((await t.call("DELETE", "/api/volumes/data/files?path=b")).status).toBe(200)
  expect(require("node:fs").readdirSync(root)).toEqual([])
  for (const path of ["../x", "a/../b", "."])
    expect((await t.call("GET", `/api/volumes/data/files?path=${q(path)}`)).status).toBe(400)
})
