import { afterEach, expect, test } from "bun:test"
import { testApp, type TestApp } from "../../../support/app.ts"

let t: TestApp
afterEach(() => t.close())

const token = "SWMTKN-1-fakeclustersecret-workerpart"

test("joins with the token as a worker; the event names the managers, never the token", async () => {
  t = await testApp()
  const res = await t.call("POST", "/api/swarm/join", {
    remote_addrs: ["10.0.0.10:2377"],
    join_token: token,
    advertise_addr: "10.0.0.11",
  })
  expect(res.status).toBe(200)
  const body = await res.text()
  expect(JSON.parse(body)).toMatchObject({ active: true, role: "worker" })
  expect(body).not.toContain(token)
  expect(t.engine.calls.find((c) => c.op === "swarmJoin")?.args).toEqual([
    { ListenAddr: "0.0.0.0:2377", RemoteAddrs: ["10.0.0.10:2377"], JoinToken: token, AdvertiseAddr: "10.0.0.11" },
  ])
  const events = JSON.stringify(t.ctx.events.history())
  expect(events).toContain("10.0.0.10:2377")
  expect(events).not.toContain(token)
})

test("no manager, a token that is not one, or a missing field: 400 before the engine", async () => {
  t = await testApp()
  for (const body of [
    { remote_addrs: [], join_token: token },
    { remote_addrs: ["10.0.0.10:2377"], join_token: "secret" },
    { remote_addrs: ["10.0.0.10:2377"] },
    { join_token: token },
  ]) {
    const res = await t.call("POST", "/api/swarm/join", body)
    expect(res.status).toBe(400)
  }
  expect(t.engine.calls.some((c) => c.op === "swarmJoin")).toBe(false)
})

test("a token the swarm refuses: the engine's error, with the token taken out", async () => {
  t = await testApp()
  const wrong = "SWMTKN-1-notthisone"
  t.engine.swarmJoin = async () => {
    throw (await import("#lib/engine/client.ts")).engineError(400, `invalid join token ${wrong}`)
  }
  const res = await t.call("POST", "/api/swarm/join", { remote_addrs: ["10.0.0.10:2377"], join_token: wrong })
  expect(res.status).toBe(400)
  const text = await res.text()
  expect(text).not.toContain(wrong)
  expect(text).toContain("<join token>")
})
