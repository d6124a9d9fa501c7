import { afterEach, expect, test } from "bun:test"
import { FakeEngine } from "../../../support/fake-engine.ts"
import { testApp, type TestApp } from "../../../support/app.ts"
import { standInScanner } from "../../../support/scanners.ts"

let t: TestApp
afterEach(() => t.close())

test("every tagged image is queued, a dangling one is not", async () => {
  const engine = new FakeEngine()
  t = await testApp({ engine, scanner: standInScanner(engine, "grype-empty.json", { PATH: "/nonexistent" }) })
  const a = engine.addImage(["a:1", "a:latest"])
  const b = engine.addImage(["b:2"])
  engine.addImage([])
  engine.addImage(["<none>:<none>"])
  const res = await t.call("POST", "/api/images/scan")
  expect(res.status).toBe(202)
  expect((await res.json()).queued.map((q: { image: string; ref: string }) => [q.image, q.ref])).toEqual([
    [a.Id, "a:1"],
    [b.Id, "b:2"],
  ])
  await t.ctx.scans.idle()
  expect([...(await t.ctx.scans.results()).keys()].sort()).toEqual([a.Id, b.Id].sort())
})
