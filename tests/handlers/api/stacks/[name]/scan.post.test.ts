import { afterEach, expect, test } from "bun:test"
import { FakeEngine } from "../../../../support/fake-engine.ts"
import { testApp, type TestApp } from "../../../../support/app.ts"
import { standInScanner } from "../../../../support/scanners.ts"

let t: TestApp
afterEach(() => t.close())

const project = (name: string) => ({ "com.docker.compose.project": name, "com.docker.compose.service": "svc" })

test("every image the stack's containers run is queued; images gone from the engine are listed as missing", async () => {
  const engine = new FakeEngine()
  t = await testApp({ engine, scanner: standInScanner(engine, "grype-image.json", { PATH: "/none" }) })
  const web = engine.addImage(["web:1"])
  engine.addContainer({ name: "shop_web_1", image: "web:1", labels: project("shop") })
  engine.addContainer({ name: "shop_web_2", image: "web:1", labels: project("shop") })
  engine.addContainer({ name: "shop_old_1", image: "old:0", labels: project("shop") })
  engine.addContainer({ name: "other_1", image: "other:1", labels: project("other") })
  const res = await t.call("POST", "/api/stacks/shop/scan")
  expect(res.status).toBe(202)
  expect(await res.json()).toEqual({
    stack: "shop",
    queued: [{ image: web.Id, ref: "web:1", state: "queued" }],
    missing: ["old:0"],
  })
})

test("an unknown stack is 404, a bad name 400", async () => {
  t = await testApp()
  expect((await t.call("POST", "/api/stacks/ghost/scan")).status).toBe(404)
  expect((await t.call("POST", "/api/stacks/Bad..Name/scan")).status).toBe(400)
})
