import { afterEach, expect, test } from "bun:test"
import { testApp, type TestApp } from "../../../support/app.ts"

let t: TestApp
afterEach(() => t.close())

test("lists the registry ordered by name", async () => {
  t = await testApp()
  expect(await (await t.call("GET", "/api/nodes")).json()).toEqual([])
  for (const [id, name] of [
    ["s-2", "beta"],
    ["s-1", "alpha"],
    ["s-3", "Gamma"],
  ])
    await t.ctx.nodes.register({ server_id: id!, name: name!, url: `http://10.0.0.1:8080` })
  const list = await (await t.call("GET", "/api/nodes")).json()
  expect(list.map((n: { name: string }) => n.name)).toEqual(["Gamma", "alpha", "beta"])
  expect(list[1]).toMatchObject({
    name: "alpha",
    url: "http://10.0.0.1:8080",
    status: "unknown",
    error: "not probed yet",
    server_id: "s-1",
  })
})
