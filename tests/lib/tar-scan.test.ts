import { expect, test } from "bun:test"
import type { HttpError } from "../../lib/http-error.ts"
import { TarScanner, tarGuard, type TarEntry } from "../../lib/tar-scan.ts"
import { makeTar } from "../support/tar.ts"

const long = `${"deep/".repeat(40)}file.txt`

async function entries(tar: Uint8Array, chunk: number): Promise<TarEntry[]> {
  const seen: TarEntry[] = []
  const s = new TarScanner((e) => seen.push(e))
  for (let i = 0; i < tar.length; i += chunk) await s.push(tar.subarray(i, i + chunk))
  await s.end()
  return seen
}

test.each([1, 7, 512, 1 << 20])("entries are read whatever the chunk size (%i bytes)", async (chunk) => {
  const tar = await makeTar([
    { name: "dir/", type: "directory" },
    { name: "dir/a.txt", content: "x".repeat(1000) },
    { name: long, content: "long name" },
    { name: "ln", type: "symlink", linkname: "/etc/passwd" },
    { name: "hard", type: "link", linkname: long },
  ])
  expect((await entries(tar, chunk)).map((e) => [e.name, e.type, e.size, e.linkname])).toEqual([
    ["dir/", "5", 0, ""],
    ["dir/a.txt", "0", 1000, ""],
    [long, "0", 9, ""],
    ["ln", "2", 0, "/etc/passwd"],
    ["hard", "1", 0, long],
  ])
})

/** The bytes as a stream of `chunk`-byte pieces, each in a buffer of its own. */
function pieces(tar: Uint8Array, chunk: number): ReadableStream<Uint8Array> {
  let at = 0
  return new ReadableStream({
    pull(controller) {
      if (at >= tar.length) return controller.close()
      controller.enqueue(tar.slice(at, (at += chunk)))
    },
  })
}

async function guarded(tar: Uint8Array, chunk = 1 << 16): Promise<{ out?: Uint8Array; error?: HttpError }> {
  const guard = tarGuard(pieces(tar, chunk))
  try {
    return { out: new Uint8Array(await new Response(guard.stream).arrayBuffer()) }
  } catch (err) {
    return { error: (guard.error ?? err) as HttpError }
  }
}

async function through(tar: Uint8Array): Promise<{ out?: Uint8Array; error?: string }> {
  const { out, error } = await guarded(tar)
  return error ? { error: error.message } : { out }
}

test.each([
  [[{ name: "../escape", content: "x" }], 'the archive entry "../escape" points outside the volume'],
  [[{ name: "ok" }, { name: "a/../../escape", content: "x" }], 'the archive entry "a/../../escape" points outside the volume'],
  [[{ name: "/etc/passwd", content: "x" }], 'the archive entry "/etc/passwd" points outside the volume'],
  [[{ name: `${long}/../../..`, content: "x" }], `the archive entry "${`${long}/../../..`.slice(0, 200)}" points outside the volume`],
  [[{ name: "hard", type: "link" as const, linkname: "../../etc/shadow" }], 'the hard link "hard" points outside the volume'],
])("an unsafe archive is refused: %p", async (files, message) => {
  expect(await through(await makeTar(files))).toEqual({ error: message })
})

test("a safe archive passes byte for byte; symlinks may point anywhere (the engine confines them)", async () => {
  const tar = await makeTar([{ name: "./", type: "directory" }, { name: "./a..b", content: "dots in a name are fine" }, { name: "s", type: "symlink", linkname: "/data" }])
  expect(await through(tar)).toEqual({ out: tar })
})

// Archives written byte by byte, for what tar-stream's pack never writes.
const ascii = (s: string) => new TextEncoder().encode(s)

/** A 512-byte header: ustar, or GNU (`ustar  \0`) as GNU tar writes it for long names. */
function header(h: { name: string; type?: string; size?: number; linkname?: string; gnu?: boolean }): Uint8Array {
  const b = new Uint8Array(512)
  const put = (s: string, at: number) => b.set(ascii(s), at)
  put(h.name, 0)
  put("0000644\0", 100)
  put("0000000\0", 108)
  put("0000000\0", 116)
  put(`${(h.size ?? 0).toString(8).padStart(11, "0")}\0`, 124)
  put("00000000000\0", 136)
  put(h.type ?? "0", 156)
  put(h.linkname ?? "", 157)
  put(h.gnu ? "ustar  \0" : "ustar\u000000", 257)
  put("        ", 148)
  put(`${b.reduce((n, x) => n + x, 0).toString(8).padStart(6, "0")}\0 `, 148)
  return b
}

const padded = (data: Uint8Array) => {
  const out = new Uint8Array(Math.ceil(data.length / 512) * 512)
  out.set(data)
  return out
}

/** A pax extended header ('x') with its records, for the entry that follows. */
function pax(records: Record<string, string>): Uint8Array[] {
  const record = (key: string, value: string) => {
    const body = ` ${key}=${value}\n`
    let length = body.length + 1
    while (`${length}`.length + body.length !== length) length++
    return `${length}${body}`
  }
  const data = ascii(Object.entries(records).map(([k, v]) => record(k, v)).join(""))
  return [header({ name: "PaxHeader/entry", type: "x", size: data.length }), padded(data)]
}

/** A GNU long name ('L') or long link ('K') for the entry that follows. */
function gnuLong(type: "L" | "K", value: string): Uint8Array[] {
  const data = ascii(`${value}\0`)
  return [header({ name: "././@LongLink", type, size: data.length, gnu: true }), padded(data)]
}

const file = (name: string, content: string) => [header({ name, size: content.length }), padded(ascii(content))]

function archive(...parts: Uint8Array[][]): Uint8Array {
  const blocks = [...parts.flat(), new Uint8Array(1024)]
  const out = new Uint8Array(blocks.reduce((n, b) => n + b.length, 0))
  blocks.reduce((at, b) => (out.set(b, at), at + b.length), 0)
  return out
}

const refusal = async (tar: Uint8Array) => {
  const { error } = await guarded(tar)
  return { status: error?.status, code: error?.code, message: error?.message }
}
const unsafeArchive = (message: string) => ({ status: 400, code: "unsafe_archive", message })

// The pax record gives the entry no data, so the block its ustar size covers is the next header:
// the engine's Go archive/tar reads it as one, and so must the guard.
const smuggled = archive(pax({ size: "0" }), [header({ name: "innocent", size: 512 }), header({ name: "../evil" })])

test("a pax size of 0 cannot hide the next header behind the ustar size", async () => {
  expect((await entries(smuggled, 100)).map((e) => [e.name, e.size])).toEqual([
    ["innocent", 0],
    ["../evil", 0],
  ])
  expect(await refusal(smuggled)).toEqual(unsafeArchive('the archive entry "../evil" points outside the volume'))
})

test("entries are judged by their pax path and linkpath", async () => {
  expect(await refusal(archive(pax({ path: "../evil" }), file("ok", "x")))).toEqual(unsafeArchive('the archive entry "../evil" points outside the volume'))
  const link = archive(pax({ linkpath: "../../etc/shadow" }), [header({ name: "h", type: "1", linkname: "ok" })])
  expect(await refusal(link)).toEqual(unsafeArchive('the hard link "h" points outside the volume'))
  const renamed = archive(pax({ path: "fine" }), file("../ustar-name", "x"))
  expect(await guarded(renamed)).toEqual({ out: renamed })
})

test("entries are judged by their GNU long name (type L) and long link (type K)", async () => {
  const name = `../${"x".repeat(120)}`
  const longName = archive(gnuLong("L", name), [header({ name: "innocent", gnu: true })])
  expect(await refusal(longName)).toEqual(unsafeArchive(`the archive entry "${name}" points outside the volume`))
  const longLink = archive(gnuLong("K", "../../etc/passwd"), [header({ name: "h", type: "1", linkname: "ok", gnu: true })])
  expect(await refusal(longLink)).toEqual(unsafeArchive('the hard link "h" points outside the volume'))
  const safe = archive(gnuLong("L", long), gnuLong("K", `${long}.target`), [header({ name: "cut", type: "1", gnu: true })])
  expect((await entries(safe, 7)).map((e) => [e.name, e.type, e.linkname])).toEqual([[long, "1", `${long}.target`]])
})

test.each([
  ["a symlink", "2"],
  ["a directory", "5"],
  ["a fifo", "6"],
])("%s given a size is refused: the engine reads no data for it, so the size could hide the next header", async (_, type) => {
  const tar = archive([header({ name: "quiet", type, linkname: "x", size: 512 }), header({ name: "../evil" })])
  expect(await refusal(tar)).toEqual(unsafeArchive('the archive entry "quiet" gives a size to an entry that holds no data'))
})

test("a type the import does not unpack (an old GNU sparse file) is refused", async () => {
  expect(await refusal(archive([header({ name: "sparse", type: "S", gnu: true })]))).toEqual(unsafeArchive('the archive entry "sparse" has a type the import does not unpack'))
})

test.each([
  ["in the middle of a file's data", 700],
  ["in the middle of a header", 100],
])("an archive that ends %s is refused at its end", async (_, length) => {
  const tar = (await makeTar([{ name: "a", content: "x".repeat(1000) }])).subarray(0, length)
  expect(await refusal(tar)).toEqual({ status: 400, code: "invalid_archive", message: "the archive cannot be read: Unexpected end of data" })
})

test.each([1, 7, 1000, 1 << 16])("a clean archive with pax and GNU long names comes out identical (%i-byte pieces)", async (chunk) => {
  const tar = archive(
    await makeTar([{ name: "./", type: "directory" }, { name: long, content: "y".repeat(3000) }, { name: "s", type: "symlink", linkname: long }]).then((t) => [t.subarray(0, -1024)]),
    gnuLong("L", `${long}.gnu`),
    file("cut", "z".repeat(513)),
    pax({ path: "p", mtime: "1" }),
    file("q", ""),
  )
  expect(await guarded(tar, chunk)).toEqual({ out: tar })
})
