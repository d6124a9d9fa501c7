import { expect, test } from "bun:test"
import type { DomainError } from "#lib/errors/errors.ts"
import { TarScanner, tarGuard, type TarEntry } from "#lib/volumes/tar-scan.ts"
import { makeTar } from "../../support/tar.ts"

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

async function guarded(tar: Uint8Array, chunk = 1 << 16): Promise<{ out?: Uint8Array; error?: DomainError }> {
  const guard = tarGuard(pieces(tar, chunk))
  try {
    return { out: new Uint8Array(await new Response(guard.stream).arrayBuffer()) }
  } catch (err) {
    return { error: (guard.error ?? err) as DomainError }
  }
}

async function through(tar: Uint8Array): Promise<{ out?: Uint8Array; error?: string }> {
  const { out, error } = await guarded(tar)
  return error ? { error: error.message } : { out }
}

test.each([
  [[{ name: "../escape", content: "x" }], 'the archive entry "../escape" points outside the volume'],
  [
    [{ name: "ok" }, { name: "a/../../escape", content: "x" }],
    'the archive entry "a/../../escape" points outside the volume',
  ],
  [[{ name: "/etc/passwd", content: "x" }], 'the archive entry "/etc/passwd" points outside the volume'],
  [
    [{ name: `${long}/../../..`, content: "x" }],
    `the archive entry "${`${long}/../../..`.slice(0, 200)}" points outside the volume`,
  ],
  [
    [{ name: "hard", type: "link" as const, linkname: "../../etc/shadow" }],
    'the hard link "hard" points outside the volume',
  ],
])("an unsafe archive is refused: %p", async (files, message) => {
  expect(await through(await makeTar(files))).toEqual({ error: message })
})

test("a safe archive passes byte for byte; symlinks may point anywhere (the engine confines them)", async () => {
  const tar = await makeTar([
    { name: "./", type: "directory" },
    { name: "./a..b", content: "dots in a name are fine" },
    { name: "s", type: "symlink", linkname: "/data" },
  ])
  expect(await through(tar)).toEqual({ out: tar })
})

// Archives written byte by byte, for what tar-stream's pack never writes.
const ascii = (s: string) => new TextEncoder().encode(s)

/**
 * A 512-byte header: ustar, GNU (`ustar  \0`) as GNU tar writes it for long names, star (ustar with
 * `tar\0` at 508), or V7 (no magic); `at345` fills the bytes from 345 (USTAR's prefix, GNU's
 * access and change times, star's 131-byte prefix and times). The checksum is of unsigned bytes
 * unless `signed`.
 */
function header(h: {
  name: string
  type?: string
  size?: number
  linkname?: string
  gnu?: boolean
  star?: boolean
  v7?: boolean
  at345?: string
  signed?: boolean
}): Uint8Array {
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
  if (!h.v7) put(h.gnu ? "ustar  \0" : "ustar\u000000", 257)
  if (h.star) put("tar\0", 508)
  if (h.at345) put(h.at345, 345)
  put("        ", 148)
  const sum = b.reduce((n, x) => n + (h.signed ? (x << 24) >> 24 : x), 0)
  put(`${sum.toString(8).padStart(6, "0")}\0 `, 148)
  return b
}

const padded = (data: Uint8Array) => {
  const out = new Uint8Array(Math.ceil(data.length / 512) * 512)
  out.set(data)
  return out
}

/** Pax records as a pax header's data. */
function paxData(records: Record<string, string>): Uint8Array {
  const record = (key: string, value: string) => {
    const body = ` ${key}=${value}\n`
    let length = body.length + 1
    while (`${length}`.length + body.length !== length) length++
    return `${length}${body}`
  }
  return ascii(
    Object.entries(records)
      .map(([k, v]) => record(k, v))
      .join(""),
  )
}

/** A pax extended header ('x') with its records, for the entry that follows. */
function pax(records: Record<string, string>): Uint8Array[] {
  const data = paxData(records)
  return [header({ name: "PaxHeader/entry", type: "x", size: data.length }), padded(data)]
}

/** A pax global header ('g'), as git archive writes one. */
function paxGlobal(records: Record<string, string>): Uint8Array[] {
  const data = paxData(records)
  return [header({ name: "pax_global_header", type: "g", size: data.length }), padded(data)]
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
  return { kind: error?.kind, code: error?.code, message: error?.message }
}
const unsafeArchive = (message: string) => ({ kind: "invalid" as const, code: "unsafe_archive", message })

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
  expect(await refusal(archive(pax({ path: "../evil" }), file("ok", "x")))).toEqual(
    unsafeArchive('the archive entry "../evil" points outside the volume'),
  )
  const link = archive(pax({ linkpath: "../../etc/shadow" }), [header({ name: "h", type: "1", linkname: "ok" })])
  expect(await refusal(link)).toEqual(unsafeArchive('the hard link "h" points outside the volume'))
  const renamed = archive(pax({ path: "fine" }), file("../ustar-name", "x"))
  expect(await guarded(renamed)).toEqual({ out: renamed })
})

test("entries are judged by their GNU long name (type L) and long link (type K)", async () => {
  const name = `../${"x".repeat(120)}`
  const longName = archive(gnuLong("L", name), [header({ name: "innocent", gnu: true })])
  expect(await refusal(longName)).toEqual(unsafeArchive(`the archive entry "${name}" points outside the volume`))
  const longLink = archive(gnuLong("K", "../../etc/passwd"), [
    header({ name: "h", type: "1", linkname: "ok", gnu: true }),
  ])
  expect(await refusal(longLink)).toEqual(unsafeArchive('the hard link "h" points outside the volume'))
  const safe = archive(gnuLong("L", long), gnuLong("K", `${long}.target`), [
    header({ name: "cut", type: "1", gnu: true }),
  ])
  expect((await entries(safe, 7)).map((e) => [e.name, e.type, e.linkname])).toEqual([[long, "1", `${long}.target`]])
})

test.each([
  ["a symlink", "2"],
  ["a directory", "5"],
  ["a fifo", "6"],
])("%s given a size holds no data, as in Go: the block its size covers is read as the next header", async (_, type) => {
  const tar = archive([header({ name: "quiet", type, linkname: "x", size: 512 }), header({ name: "../evil" })])
  expect((await entries(tar, 100)).map((e) => [e.name, e.type, e.size])).toEqual([
    ["quiet", type, 512],
    ["../evil", "0", 0],
  ])
  expect(await refusal(tar)).toEqual(unsafeArchive('the archive entry "../evil" points outside the volume'))
})

test("a type the import does not unpack (an old GNU sparse file) is refused", async () => {
  expect(await refusal(archive([header({ name: "sparse", type: "S", gnu: true })]))).toEqual(
    unsafeArchive('the archive entry "sparse" has a type the import does not unpack'),
  )
})

test.each([
  ["in the middle of a file's data", 700],
  ["in the middle of a header", 100],
])("an archive that ends %s is refused at its end", async (_, length) => {
  const tar = (await makeTar([{ name: "a", content: "x".repeat(1000) }])).subarray(0, length)
  expect(await refusal(tar)).toEqual({
    kind: "invalid",
    code: "invalid_archive",
    message: "the archive cannot be read: Unexpected end of data",
  })
})

test.each([1, 7, 1000, 1 << 16])(
  "a clean archive with pax and GNU long names comes out identical (%i-byte pieces)",
  async (chunk) => {
    const tar = archive(
      await makeTar([
        { name: "./", type: "directory" },
        { name: long, content: "y".repeat(3000) },
        { name: "s", type: "symlink", linkname: long },
      ]).then((t) => [t.subarray(0, -1024)]),
      gnuLong("L", `${long}.gnu`),
      file("cut", "z".repeat(513)),
      pax({ path: "p", mtime: "1" }),
      file("q", ""),
    )
    expect(await guarded(tar, chunk)).toEqual({ out: tar })
  },
)

// Where tar-stream and Go's archive/tar (the engine's reader) part ways; each expectation is what
// dockerd 20.10 (Go 1.19) unpacked from the same bytes, PUT into a container's volume.
const names = async (tar: Uint8Array) => (await entries(tar, 7)).map((e) => [e.name, e.type])

test("a pax global header is an entry of its own: its size applies to no entry, so the next pax header is read", async () => {
  const hiding = archive(
    paxGlobal({ size: "1024" }),
    pax({ path: "../evil" }),
    file("innocent", ""),
    file("hidden", ""),
  )
  expect(await refusal(hiding)).toEqual(unsafeArchive('the archive entry "../evil" points outside the volume'))
  // The engine unpacked from-pax, hidden and hidden2.
  const safe = archive(
    paxGlobal({ size: "1024", comment: "x" }),
    pax({ path: "from-pax" }),
    file("from-ustar", ""),
    file("hidden", ""),
    file("hidden2", ""),
  )
  expect(await names(safe)).toEqual([
    ["pax_global_header", "g"],
    ["from-pax", "0"],
    ["hidden", "0"],
    ["hidden2", "0"],
  ])
  expect(await guarded(safe)).toEqual({ out: safe })
})

test("a GNU header whose access time is not a number has it read as a USTAR prefix (Go's fallback for old Go writers)", async () => {
  const dotdot = archive([header({ name: "smuggled", gnu: true, at345: "..\0" }), padded(ascii("s"))])
  expect(await refusal(dotdot)).toEqual(unsafeArchive('the archive entry "../smuggled" points outside the volume'))
  // The engine unpacked pfx/smuggled; a numeric access time is a time, no prefix.
  expect(await names(archive([header({ name: "smuggled", gnu: true, at345: "pfx\0" })]))).toEqual([
    ["pfx/smuggled", "0"],
  ])
  expect(await names(archive([header({ name: "gnu-ok", gnu: true, at345: "00000000001\0" })]))).toEqual([
    ["gnu-ok", "0"],
  ])
})

test("a GNU long name wins over a pax path on the same entry, in either order", async () => {
  expect(await refusal(archive(gnuLong("L", "../evil"), pax({ path: "safe" }), file("ustar", "")))).toEqual(
    unsafeArchive('the archive entry "../evil" points outside the volume'),
  )
  expect(await refusal(archive(pax({ path: "safe" }), gnuLong("L", "../evil"), file("ustar", "")))).toEqual(
    unsafeArchive('the archive entry "../evil" points outside the volume'),
  )
  const link = archive(gnuLong("K", "../../etc/shadow"), pax({ linkpath: "ok" }), [
    header({ name: "h", type: "1", linkname: "ok" }),
  ])
  expect(await refusal(link)).toEqual(unsafeArchive('the hard link "h" points outside the volume'))
  // The engine unpacked long-wins.
  expect(await names(archive(gnuLong("L", "long-wins"), pax({ path: "pax-loses" }), file("ustar-loses", "")))).toEqual([
    ["long-wins", "0"],
  ])
})

test("a pax header followed by a global header is dropped: the entry after them keeps its own name", async () => {
  const tar = archive(pax({ path: "../evil" }), paxGlobal({ comment: "c" }), file("ok", "x"))
  // The engine unpacked ok (and, from a path of "pax-dropped", nothing else).
  expect(await names(tar)).toEqual([
    ["pax_global_header", "g"],
    ["ok", "0"],
  ])
  expect(await guarded(tar)).toEqual({ out: tar })
  // GNU long names read before a global header are dropped as well.
  expect(await names(archive(gnuLong("L", "../evil"), paxGlobal({}), file("kept", "")))).toEqual([
    ["pax_global_header", "g"],
    ["kept", "0"],
  ])
})

test("a star header has a prefix of 131 bytes, followed by its access and change times", async () => {
  expect(await refusal(archive([header({ name: "file", star: true, at345: "..\0" })]))).toEqual(
    unsafeArchive('the archive entry "../file" points outside the volume'),
  )
  const full = `${"p".repeat(131)}00000000001\u000000000000002\0`
  // The engine unpacked ppp…p (131)/file.
  expect(await names(archive([header({ name: "file", star: true, at345: full })]))).toEqual([
    [`${"p".repeat(131)}/file`, "0"],
  ])
  expect(await names(archive([header({ name: "file", star: true, at345: "starpfx\0" })]))).toEqual([
    ["starpfx/file", "0"],
  ])
})

test("more of Go's reading, each checked on the engine", async () => {
  // A '\0' type with a trailing slash is a directory and holds no data.
  expect(await names(archive([header({ name: "rega-dir/", type: "\0", size: 512 })], file("after-rega", "")))).toEqual([
    ["rega-dir/", "5"],
    ["after-rega", "0"],
  ])
  // A second pax header replaces the first.
  expect(await names(archive(pax({ path: "../first-pax" }), pax({ mtime: "1" }), file("after-two", "")))).toEqual([
    ["after-two", "0"],
  ])
  // An empty pax value keeps the header's own.
  expect(
    (await entries(archive(pax({ size: "" }), file("abc", "abc"), file("next", "")), 7)).map((e) => [e.name, e.size]),
  ).toEqual([
    ["abc", 3],
    ["next", 0],
  ])
  // A GNU sparse 1.0 file is named by GNU.sparse.name; its data (the map) is the entry's size.
  const sparse = archive(
    pax({
      "GNU.sparse.major": "1",
      "GNU.sparse.minor": "0",
      "GNU.sparse.name": "../sparse",
      "GNU.sparse.realsize": "3",
    }),
    [header({ name: "GNUSparseFile.0/x", size: 512 }), padded(ascii("0\n"))],
  )
  expect(await refusal(sparse)).toEqual(unsafeArchive('the archive entry "../sparse" points outside the volume'))
  // A checksum of signed bytes, as old Sun tar wrote it; a V7 header (no magic) has no prefix.
  expect(
    await names(
      archive([header({ name: "sig\u00e9", signed: true })], [header({ name: "v7", v7: true, at345: "pfx\0" })]),
    ),
  ).toEqual([
    ["sig\u00e9", "0"],
    ["v7", "0"],
  ])
})

const invalidArchive = (reason: string) => ({
  kind: "invalid" as const,
  code: "invalid_archive",
  message: `the archive cannot be read: ${reason}`,
})

test("what Go refuses to read is refused: a bad checksum, an empty pax key, a zero block followed by a header, a compressed stream", async () => {
  const bad = header({ name: "x" })
  bad[0] = 0x79
  expect(await refusal(archive([bad]))).toEqual(invalidArchive("invalid tar header (the checksum does not match)"))
  const emptyKey = archive(
    [header({ name: "PaxHeader/e", type: "x", size: 6 }), padded(ascii("6 =ab\n"))],
    file("x", ""),
  )
  expect(await refusal(emptyKey)).toEqual(invalidArchive("invalid tar header (an invalid pax record)"))
  expect(await refusal(archive([new Uint8Array(512)], file("../after-zero", "")))).toEqual(
    invalidArchive("invalid tar header (a zero block followed by a header)"),
  )
  // The engine decompresses a stream that starts like gzip (or bzip2, xz, zstd) before reading it.
  const gzip = Bun.gzipSync(new Uint8Array(archive(file("../in-gzip", ""))))
  expect(await refusal(gzip)).toEqual(
    invalidArchive(
      "it is compressed (gzip), and the engine would unpack what it decompresses to; send an uncompressed tar",
    ),
  )
})

test("what follows the end of the archive (two zero blocks) is passed on unread, as the engine leaves it", async () => {
  const tar = new Uint8Array([...archive(file("a", "x")), ...header({ name: "../after-end" })])
  expect(await names(tar)).toEqual([["a", "0"]])
  expect(await guarded(tar)).toEqual({ out: tar })
})

test.each([1, 7, 512, 999, 1000, 1 << 16])(
  "an archive with global, star, GNU, signed-checksum and sparse headers comes out identical (%i-byte pieces)",
  async (chunk) => {
    const tar = archive(
      paxGlobal({ comment: "git" }),
      [header({ name: "sig\u00e9", signed: true })],
      [header({ name: "f", star: true, at345: "starpfx\0", size: 600 }), padded(ascii("s".repeat(600)))],
      [header({ name: "smuggled", gnu: true, at345: "pfx\0" })],
      gnuLong("L", `${long}.gnu`),
      pax({ path: "pax-loses", mtime: "1.5" }),
      file("cut", "z".repeat(1025)),
      pax({
        "GNU.sparse.major": "1",
        "GNU.sparse.minor": "0",
        "GNU.sparse.name": "sparse",
        "GNU.sparse.realsize": "3",
      }),
      [header({ name: "GNUSparseFile.0/sparse", size: 512 }), padded(ascii("0\n"))],
    )
    expect((await entries(tar, chunk)).map((e) => e.name)).toEqual([
      "pax_global_header",
      "sig\u00e9",
      "starpfx/f",
      "pfx/smuggled",
      `${long}.gnu`,
      "sparse",
    ])
    expect(await guarded(tar, chunk)).toEqual({ out: tar })
  },
)
