import { afterEach, expect, test } from "bun:test"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { FakeEngine } from "../../support/fake-engine.ts"
import { ImageUpdates } from "#lib/images/update-checks.ts"
import { Registries } from "#lib/registries/registries.ts"

const digest = (c: string) => `sha256:${c.repeat(64)}`
let dataDir: string
let registry: ReturnType<typeof Bun.serve>
afterEach(() => {
  registry?.stop(true)
  rmSync(dataDir, { recursive: true, force: true })
})

function setup() {
  dataDir = mkdtempSync(join(tmpdir(), "hm-updates-"))
  registry = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: () => new Response(null, { headers: { "docker-content-digest": digest("b") } }),
  })
  const engine = new FakeEngine()
  const host = `127.0.0.1:${registry.port}`
  engine.addImage([`${host}/pulled:1`], { RepoDigests: [`${host}/pulled@${digest("a")}`] })
  engine.addImage(["built-here:1"])
  const registries = new Registries(dataDir)
  return { engine, host, updates: new ImageUpdates(dataDir, engine, (ref) => registries.digest(ref)) }
}

test("the check of pulled images looks at every tag of images that came from a registry and records it", async () => {
  const { engine, host, updates } = setup()
  await updates.checkPulled()
  const stored = JSON.parse(readFileSync(join(dataDir, "updates.json"), "utf8"))
  expect(Object.keys(stored.images)).toEqual([`${host}/pulled:1`])
  expect(stored.images[`${host}/pulled:1`]).toMatchObject({
    update_available: true,
    remote_digest: digest("b"),
    local_digests: [digest("a")],
  })
  expect(await updates.pending()).toHaveLength(1)
  expect(engine.calls.filter((c) => c.op === "listImages").length).toBe(1)
})

test("a digest-pinned reference is never outdated; an image id is not a reference", async () => {
  const { updates } = setup()
  const [pinned, id] = await updates.checkAll([`busybox@${digest("c")}`, digest("d")])
  expect(pinned).toMatchObject({ update_available: false, remote_digest: digest("c"), error: null })
  expect(id).toMatchObject({ update_available: null, error: expect.stringContaining("is an image id") })
})
