// When restic may read and write a volume's own folder: only for an engine on a unix socket, as root,
// once a volume of a random name proved that its folder is this host's and the confinement works
// there, the probe's volume removed whatever the answer. And the confinement itself: no path through
// the folder follows a symlink, and a backup's is read-only.
import { afterAll, beforeAll, expect, test } from "bun:test"
import { spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { confined, isLocal, provesLocal, type Probe } from "#lib/volumes/folder.ts"
import { FakeEngine } from "../../support/fake-engine.ts"

let dir: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "hm-folder-"))
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function engineAt(host: string): FakeEngine {
  const engine = new FakeEngine()
  ;(engine as { host: string }).host = host
  return engine
}

/** A probe that finds every path a folder, as root, the confinement working unless told. */
const probe = (over: Partial<Probe> = {}): Probe => ({
  isRoot: () => true,
  isFolder: () => true,
  confines: async () => true,
  ...over,
})
const created = (engine: FakeEngine) => engine.calls.filter((c) => c.op === "createVolume").length

test("an engine on a unix socket whose new volume's folder is here, with the confinement working, is local; the probe's volume is removed", async () => {
  const engine = engineAt("unix:///run/docker.sock")
  expect(await provesLocal(engine, probe())).toBe(true)
  expect(created(engine)).toBe(1)
  expect(engine.volumes.size).toBe(0)
})

test("a tcp engine is never local, and is not even asked", async () => {
  const engine = engineAt("tcp://127.0.0.1:2375")
  expect(await provesLocal(engine, probe())).toBe(false)
  expect(engine.calls).toEqual([])
})

test("not root: not local, nothing created", async () => {
  const engine = engineAt("unix:///run/docker.sock")
  expect(await provesLocal(engine, probe({ isRoot: () => false }))).toBe(false)
  expect(created(engine)).toBe(0)
})

test("a volume folder that is not here (an engine in a VM behind a unix socket) is not local", async () => {
  const engine = engineAt("unix:///home/u/.docker/desktop/docker.sock")
  const seen: string[] = []
  expect(await provesLocal(engine, probe({ isFolder: (p) => (seen.push(p), false) }))).toBe(false)
  expect(seen).toHaveLength(1)
  expect(seen[0]).toMatch(/^\/fake\/volumes\/harbormaster-probe-[0-9a-f]{24}$/)
  expect(engine.volumes.size).toBe(0)
})

test("a confinement that fails (no unshare, no nosymfollow) is not local; an engine that fails the probe gives no answer", async () => {
  const engine = engineAt("unix:///run/docker.sock")
  expect(await provesLocal(engine, probe({ confines: async () => false }))).toBe(false)
  expect(engine.volumes.size).toBe(0)
  engine.down = true
  await expect(provesLocal(engine, probe())).rejects.toMatchObject({ code: "engine_unavailable" })
})

const asRoot = process.getuid?.() === 0

test.skipIf(!asRoot)(
  "isLocal: an engine down falls back to the stream and is asked again; an answer is kept",
  async () => {
    const engine = engineAt("unix:///run/hm-folder-test.sock")
    engine.down = true
    expect(await isLocal(engine)).toBe(false)
    engine.down = false
    // The fake's volume folders are not on this host: not local, and not asked a third time.
    expect(await isLocal(engine)).toBe(false)
    expect(await isLocal(engine)).toBe(false)
    expect(created(engine)).toBe(1)
  },
)

test.skipIf(!asRoot)("confined: symlinks are read as links but never followed; read-only unless written", () => {
  const folder = join(dir, "vol")
  const outside = join(dir, "outside")
  mkdirSync(folder)
  mkdirSync(outside)
  writeFileSync(join(outside, "secret"), "host")
  writeFileSync(join(folder, "own"), "mine")
  symlinkSync(join(outside, "secret"), join(folder, "file-link"))
  symlinkSync(outside, join(folder, "dir-link"))
  const run = (write: boolean, script: string) => {
    const cmd = confined(folder, write, ["sh", "-c", script])
    const r = spawnSync(cmd[0]!, cmd.slice(1), { encoding: "utf8" })
    return { status: r.status, out: r.stdout, err: r.stderr }
  }
  expect(run(false, "cat own")).toMatchObject({ status: 0, out: "mine" })
  expect(run(false, "readlink file-link")).toMatchObject({ status: 0, out: `${join(outside, "secret")}\n` })
  expect(run(false, "cat file-link").err).toContain("Too many levels of symbolic links")
  expect(run(false, "echo x > new").status).not.toBe(0)
  expect(run(true, "echo x > new && cat new")).toMatchObject({ status: 0, out: "x\n" })
  expect(run(true, "echo x > dir-link/planted").status).not.toBe(0)
  expect(spawnSync("ls", [outside], { encoding: "utf8" }).stdout).toBe("secret\n")
})
