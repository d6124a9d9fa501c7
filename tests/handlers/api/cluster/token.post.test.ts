import { afterEach, expect, test } from "bun:test"
import { testApp, type TestApp } from "../../../support/app.ts"

let t: TestApp
afterEach(() => t.close())

const bearer = (token: string) => ({ authorization: `Bearer ${token}` })

test("minting makes this server the control plane; a new token retires the previous one", async () => {
  t = await testApp()
  const res = await t.call("POST", "/api/cluster/token")
  expect(res.status).toBe(201)
  const { token: first } = await res.json()
  expect(await t.ctx.cluster.role()).toBe("control-plane")
  expect((await t.call("GET", "/api/cluster/verify", undefined, bearer(first))).status).toBe(200)
  const { token: second } = await (await t.call("POST", "/api/cluster/token")).json()
  expect(second).not.toBe(first)
  expect((await t.call("GET", "/api/cluster/verify", undefined, bearer(first))).status).toBe(401)
  expect((await t.call("GET", "/api/cluster/verify", undefined, bearer(second))).status).toBe(200)
})

test("a member must leave before it mints", async () => {
  t = await testApp()
  t.ctx.cluster.save({ role: "member", token: "joined", control_plane_url: "http://cp:8080" })
  const res = await t.call("POST", "/api/cluster/token")
  expect(res.status).toBe(409)
  expect((await res.json()).error.code).toBe("is_member")
  expect((await t.ctx.cluster.read())?.token).toBe("joined")
})
