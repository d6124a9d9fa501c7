import { afterEach, expect, test } from "bun:test"
import { testApp, type TestApp } from "../../../../support/app.ts"

let t: TestApp
let registry: ReturnType<typeof Bun.serve>
afterEach(() => {
  t.close()
  registry.stop(true)
})

const digest = (c: string) => `sha256:${c.repeat(64)}`

test("each image's registry is asked for its tag's digest; a differing digest is a pending update, recorded for the stack and the image", async () => {
  registry = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (req) => {
      const path = new URL(req.url).pathname
      const served = { "/v2/app/manifests/1": digest("a"), "/v2/db/manifests/2": digest("c") }[path]
      return new Response(null, served ? { headers: { "docker-content-digest": served } } : { status: 404 })
    },
  })
  const host = `127.0.0.1:${registry.port}`
  t = await testApp()
  const labels = { "com.docker.compose.project": "shop", "com.docker.compose.service": "x" }
  const app = t.engine.addImage([`${host}/app:1`], { RepoDigests: [`${host}/app@${digest("a")}`] })
  const db = t.engine.addImage([`${host}/db:2`], { RepoDigests: [`${host}/db@${digest("b")}`] })
  t.engine.addContainer({ name: "shop_app_1", image: `${host}/app:1`, labels })
  t.engine.addContainer({ name: "shop_db_1", image: `${host}/db:2`, labels })

  const res = await t.call("POST", "/api/stacks/shop/check-update")
  expect(res.status).toBe(200)
  const body = await res.json()
  expect(body.update_available).toBe(true)
  expect(body.images.map((i: any) => [i.ref, i.update_available, i.remote_digest, i.local_digests, i.error])).toEqual([
    [`${host}/app:1`, false, digest("a"), [digest("a")], null],
    [`${host}/db:2`, true, digest("c"), [digest("b")], null],
  ])
  const records = await t.ctx.imageUpdates.records()
  expect(records.stacks.shop).toMatchObject({ update_available: true, images: [`${host}/app:1`, `${host}/db:2`] })
  expect((await (await t.call("GET", "/api/stacks/shop")).json()).updates).toMatchObject({
    stack: "shop",
    update_available: true,
    checked_at: expect.any(String),
  })

  const images = await (await t.call("GET", "/api/images")).json()
  expect(images.find((i: any) => i.id === app.Id).update_available).toBe(false)
  expect(images.find((i: any) => i.id === db.Id)).toMatchObject({
    update_available: true,
    update_checks: [{ ref: `${host}/db:2`, remote_digest: digest("c") }],
  })
})

test("an image built here (no registry digest) or an unreachable registry cannot be told: null with the reason", async () => {
  registry = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: () => new Response(null, { headers: { "docker-content-digest": digest("d") } }),
  })
  t = await testApp()
  const labels = { "com.docker.compose.project": "lab", "com.docker.compose.service": "x" }
  t.engine.addImage([`127.0.0.1:${registry.port}/local:1`])
  t.engine.addImage(["127.0.0.1:1/gone:1"], { RepoDigests: [`127.0.0.1:1/gone@${digest("e")}`] })
  t.engine.addContainer({ name: "lab_a_1", image: `127.0.0.1:${registry.port}/local:1`, labels })
  t.engine.addContainer({ name: "lab_b_1", image: "127.0.0.1:1/gone:1", labels })
  const body = await (await t.call("POST", "/api/stacks/lab/check-update")).json()
  expect(body.update_available).toBe(false)
  expect(body.images.map((i: any) => i.update_available)).toEqual([null, null])
  expect(body.images[0].error).toContain("has no digest from")
  expect(body.images[1].error).toContain("registry 127.0.0.1:1")
})
