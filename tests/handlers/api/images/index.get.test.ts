import { afterEach, expect, test } from "bun:test"
import { testApp, type TestApp } from "../../../support/app.ts"

let t: TestApp
afterEach(() => t.close())

test("lists images with tags, size and whether they are dangling", async () => {
  t = await testApp()
  const tagged = t.engine.addImage(["busybox:latest"], { Size: 1234, Created: 1_700_000_000 })
  const dangling = t.engine.addImage(["<none>:<none>"])
  const body = await (await t.call("GET", "/api/images")).json()
  expect(body).toContainEqual({
    id: tagged.Id,
    tags: ["busybox:latest"],
    digests: [],
    created: "2023-11-14T22:13:20.000Z",
    size: 1234,
    dangling: false,
    labels: {},
    scan: null,
    scan_state: null,
    update_available: null,
    update_checks: [],
  })
  expect(body.find((i: { id: string }) => i.id === dangling.Id)).toMatchObject({ tags: [], dangling: true })
})
