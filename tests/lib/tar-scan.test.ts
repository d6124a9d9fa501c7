import { expect, test } from "bun:test"
import { TarScanner, tarGuard, type TarEntry } from "../../lib/tar-scan.ts"
import { makeTar } from "../support/tar.ts"

const long = `${"deep/".repeat(40)}file.txt`

async function entries(tar: Uint8Array, chunk: number): Promise<TarEntry[]> {
  const seen: TarEntry[] = []
  const s = new TarScanner((e) => seen.push(e))
  for (let i = 0; i < tar.length; i += chunk) s.push(tar.subarray(i, i + chunk))
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

async function through(tar: Uint8Array<ArrayBuffer>): Promise<{ out?: Uint8Array; error?: string }> {
  const guard = tarGuard(new Response(tar).body!)
  try {
    const out = new Uint8Array(await new Response(guard.stream).arrayBuffer())
    return { out }
  } catch (err) {
    return { error: (guard.error as Error)?.message ?? String(err) }
  }
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
