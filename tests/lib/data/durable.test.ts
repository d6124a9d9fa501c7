// The data directory's writes as the kernel sees them (strace): a file is written to a temp file,
// fsynced, renamed over its name and its folder fsynced; each folder made on the way is synced in its
// parent; a rename is synced in both folders, a removal in its parent. Without these, a power loss
// can undo a write that was answered as done (a file renamed in, a stack removed).
import { afterAll, expect, test } from "bun:test"
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const dir = mkdtempSync(join(tmpdir(), "hm-durable-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** The calls that change or sync the data directory `d`, fds shown as their paths, /proc/self/fd/N/ as the folder it names. */
function traced(script: string, d: string): string[] {
  const file = join(dir, "probe.ts")
  writeFileSync(file, script)
  const out = join(dir, "trace")
  const run = Bun.spawnSync(
    [
      "strace",
      "-f",
      "-y",
      "-qq",
      "-e",
      "trace=mkdir,mkdirat,rename,renameat,renameat2,unlink,unlinkat,rmdir,fsync,fdatasync,openat",
      "-o",
      out,
      "bun",
      file,
      d,
    ],
    { stderr: "pipe" },
  )
  expect(run.exitCode).toBe(0)
  const fds = new Map<string, string>()
  const lines: string[] = []
  for (const raw of readFileSync(out, "utf8").split("\n")) {
    const line = raw.replace(/^\d+ +/, "")
    // Opens of a folder: remember which fd names it, for /proc/self/fd/N paths.
    const opened = /^openat\(.*\) = (\d+)<([^>]+)>$/.exec(line)
    if (opened) fds.set(opened[1]!, opened[2]!)
    if (!line.includes(d) && !line.includes("/proc/self/fd/")) continue
    if (line.startsWith("openat")) continue
    const shown = line
      .replace(/\/proc\/self\/fd\/(\d+)/g, (_, fd) => fds.get(fd) ?? `fd${fd}`)
      .replace(/\.tmp-\d+-[a-z0-9]+/g, ".tmp")
      .replace(/\(\d+</g, "(<")
      .replace(/AT_FDCWD<[^>]*>/g, "AT_FDCWD")
      .split(d)
      .join("D")
    if (shown.includes("D")) lines.push(shown.replace(/ += .*$/, ""))
  }
  return lines
}

test("a write in new folders, a rename and a removal are each synced in the folders they change", () => {
  const d = join(dir, "data")
  mkdirSync(d)
  const lines = traced(
    `import { writeFileAtomic, removeDurably, renameDurably } from "${join(import.meta.dir, "../../../lib/data/datadir.ts")}"
const d = process.argv[2]
writeFileAtomic(d + "/records/web/versions/1.json", "{}")
renameDurably(d + "/records/web/versions/1.json", d + "/records/web/1.json")
removeDurably(d + "/records/web/versions")
`,
    d,
  )
  expect(lines).toEqual([
    'mkdir("D/records", 0755)',
    "fsync(<D>)",
    'mkdir("D/records/web", 0755)',
    "fsync(<D/records>)",
    'mkdir("D/records/web/versions", 0755)',
    "fsync(<D/records/web>)",
    "fsync(<D/records/web/versions/1.json.tmp>)",
    'rename("D/records/web/versions/1.json.tmp", "D/records/web/versions/1.json")',
    "fsync(<D/records/web/versions>)",
    'rename("D/records/web/versions/1.json", "D/records/web/1.json")',
    "fsync(<D/records/web>)",
    "fsync(<D/records/web/versions>)",
    'unlinkat(AT_FDCWD, "D/records/web/versions", 0)',
    'unlinkat(AT_FDCWD, "D/records/web/versions", AT_REMOVEDIR)',
    "fsync(<D/records/web>)",
  ])
})
