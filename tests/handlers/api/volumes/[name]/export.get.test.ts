import { afterEach, expect, test } from "bun:test"
import { engineError } from "#lib/engine/client.ts"
import { testApp, type TestApp } from "../../../../support/app.ts"
import { bearer, withToken } from "../../../../support/token.ts"

let t: TestApp
afterEach(() => t.close())

async function app() {
  t = await testApp({}, { SVC_TRANSFER_IMAGE: "mover:1" })
  withToken(t.dataDir)
  return t
}

test("streams the volume as a tar from a throwaway container without network, removed afterwards; the image is pulled on first use", async () => {
  await app()
  await t.engine.createVolume("data")
  t.engine.getArchive = async () => new Response("tar bytes").body!
  const res = await t.call("GET", "/api/volumes/data/export", undefined, bearer)
  expect(res.status).toBe(200)
  expect(res.headers.get("content-type")).toBe("application/x-tar")
  expect(await res.text()).toBe("tar bytes")
  const [create] = t.engine.calls.filter((c) => c.op === "createContainer")
  expect(create!.args[0]).toMatchObject({
    Image: "mover:1",
    NetworkDisabled: true,
    HostConfig: {
      NetworkMode: "none",
      Mounts: [{ Type: "volume", Source: "data", Target: "/v", ReadOnly: false, VolumeOptions: { NoCopy: true } }],
    },
  })
  expect(t.engine.calls.map((c) => c.op)).toContain("pullImage")
  expect(t.engine.containers.size).toBe(0)
})

test("the container is removed when the archive cannot be read", async () => {
  await app()
  await t.engine.createVolume("data")
  t.engine.getArchive = async () => {
    throw engineError(500, "engine broke")
  }
  expect((await t.call("GET", "/api/volumes/data/export", undefined, bearer)).status).toBe(502)
  expect(t.engine.containers.size).toBe(0)
})

test.each([
  ["no token", {}, "data", 401],
  ["a wrong token", { authorization: "Bearer nope" }, "data", 401],
  ["an unknown volume", bearer, "nope", 404],
  ["an invalid name", bearer, "-x", 400],
])("%s is refused", async (_what, headers, name, status) => {
  await app()
  await t.engine.createVolume("data")
  const res = await t.call("GET", `/api/volumes/${name}/export`, undefined, headers)
  expect(res.status).toBe(status)
  expect(t.engine.calls.filter((c) => c.op === "createContainer")).toEqual([])
})
