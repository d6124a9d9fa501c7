import { expect, test } from "bun:test"
import { TarScanner, type TarEntry } from "../../lib/tar-scan.ts"
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
