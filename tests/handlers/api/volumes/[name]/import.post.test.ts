import { afterEach, expect, test } from "bun:test"
import { engineError } from "#lib/engine/client.ts"
import { testApp, type TestApp } from "../../../../support/app.ts"
import { makeTar } from "../../../../support/tar.ts"
import { bearer, withToken } from "../../../../support/token.ts"

let t: TestApp
afterEach(() => t.close())

const TAR = { ...bearer, "content-type": "application/x-tar" }

async function app() {
  t = await testApp({}, { SVC_TRANSFER_IMAGE: "mover:1" })
  withToken(t.dataDir)
  t.engine.addImage(["mover:1"])
  return t
}

const archived = () => [...t.engine.archives.values()][0]

test("creates an absent volume and unpacks the tar into it at /v (201)", async () => {
  await app()
  const tar = await makeTar([{ name: "./a", content: "hello" }])
  const res = await t.call("POST", "/api/volumes/fresh/import", tar, TAR)
  expect(res.status).toBe(201)
  expect(await res.json()).toEqual({ name: "fresh", created: true })
  expect(t.engine.volumes.has("fresh")).toBe(true)
  expect(t.engine.calls.find((c) => c.op === "putArchive")!.args[1]).toBe("/v")
  expect(archived()).toEqual(tar)
  expect(t.engine.containers.size).toBe(0)
  expect(t.engine.calls.map((c) => c.op)).not.toContain("pullImage")
})

test("a volume holding data is refused unless force=true", async () => {
  await app()
  await t.engine.createVolume("full")
  const existing = await makeTar([
    { name: "./", type: "directory" },
    { name: "./old", content: "x" },
  ])
  t.engine.getArchive = async () => new Response(existing).body!
  const tar = await makeTar([{ name: "./new", content: "y" }])
  const refused = await t.call("POST", "/api/volumes/full/import", tar, TAR)
  expect(refused.status).toBe(409)
  expect((await refused.json()).error.code).toBe("volume_not_empty")
  expect(t.engine.calls.map((c) => c.op)).not.toContain("putArchive")
  expect(t.engine.volumes.has("full")).toBe(true)
  const forced = await t.call("POST", "/api/volumes/full/import?force=true", tar, TAR)
  expect(forced.status).toBe(200)
  expect(await forced.json()).toMatchObject({ created: false })
  expect(t.engine.containers.size).toBe(0)
})

test("an existing empty volume takes the data without force", async () => {
  await app()
  await t.engine.createVolume("empty")
  t.engine.getArchive = async () => new Response(await makeTar([{ name: "./", type: "directory" }])).body!
  const res = await t.call("POST", "/api/volumes/empty/import", await makeTar([{ name: "./a" }]), TAR)
  expect(res.status).toBe(200)
})

test("an entry pointing outside the volume is refused (400) and the volume it created is removed", async () => {
  await app()
  const res = await t.call(
    "POST",
    "/api/volumes/fresh/import",
    await makeTar([
      { name: "ok", content: "1" },
      { name: "../../etc/cron.d/x", content: "2" },
    ]),
    TAR,
  )
  expect(res.status).toBe(400)
  expect((await res.json()).error).toEqual({
    code: "unsafe_archive",
    message: 'the archive entry "../../etc/cron.d/x" points outside the volume',
  })
  expect(t.engine.volumes.has("fresh")).toBe(false)
  expect(t.engine.containers.size).toBe(0)
})

const refusal = "Error processing tar file(exit status 1): unexpected EOF"

test("an archive the engine refuses (a broken tar) is a 400 and the volume it created is removed", async () => {
  await app()
  t.engine.putArchive = async () => {
    throw engineError(500, refusal)
  }
  const res = await t.call("POST", "/api/volumes/fresh/import", await makeTar([{ name: "ok", content: "1" }]), TAR)
  expect(res.status).toBe(400)
  expect((await res.json()).error).toEqual({
    code: "invalid_archive",
    message: `the engine refused the archive: ${refusal}`,
  })
  expect(t.engine.volumes.has("fresh")).toBe(false)
  expect(t.engine.containers.size).toBe(0)
})

test("a pre-existing volume is never removed when its import fails", async () => {
  await app()
  await t.engine.createVolume("kept")
  const res = await t.call(
    "POST",
    "/api/volumes/kept/import?force=true",
    await makeTar([{ name: "/abs", content: "2" }]),
    TAR,
  )
  expect(res.status).toBe(400)
  expect(t.engine.volumes.has("kept")).toBe(true)
})

test.each([
  ["no token", { "content-type": "application/x-tar" }, "v1", 401],
  ["JSON instead of a tar", { ...bearer, "content-type": "application/json" }, "v1", 415],
  ["an invalid name", TAR, "a%2Fb", 400],
])("%s is refused and nothing is created", async (_what, headers, name, status) => {
  await app()
  const res = await t.call("POST", `/api/volumes/${name}/import`, await makeTar([{ name: "a" }]), headers)
  expect(res.status).toBe(status)
  expect(t.engine.volumes.size).toBe(0)
})
