import { afterEach, expect, test } from "bun:test"
import { testApp, type TestApp } from "../../../support/app.ts"
import { stackApp, twoServices } from "../../../support/compose.ts"

let t: TestApp
afterEach(() => t.close())

test("lists running containers as records, every one with all=true", async () => {
  t = await testApp()
  t.engine.addContainer({
    name: "web",
    labels: { "com.docker.compose.project": "shop", "com.docker.compose.service": "web" },
    ports: [{ IP: "0.0.0.0", PrivatePort: 80, PublicPort: 8081, Type: "tcp" }],
  })
  t.engine.addContainer({ name: "old", state: "exited" })
  const running = await (await t.call("GET", "/api/containers")).json()
  expect(running).toEqual([
    expect.objectContaining({
      name: "web",
      state: "running",
      stack: "shop",
      service: "web",
      ports: [{ ip: "0.0.0.0", private_port: 80, public_port: 8081, type: "tcp" }],
    }),
  ])
  const all = await (await t.call("GET", "/api/containers?all=true")).json()
  expect(all.map((c: { name: string }) => c.name).sort()).toEqual(["old", "web"])
  expect(all.find((c: { name: string }) => c.name === "old")).toMatchObject({
    stack: null,
    service: null,
    state: "exited",
  })
  expect(t.engine.calls.filter((c) => c.op === "listContainers").map((c) => c.args[0])).toEqual([
    { all: false },
    { all: true },
  ])
})

test("a malformed all flag is a 400", async () => {
  t = await testApp()
  const res = await t.call("GET", "/api/containers?all=maybe")
  expect(res.status).toBe(400)
  expect((await res.json()).error.code).toBe("invalid_request")
})

test("a stack's container shows none of its secrets in its labels: in the list, the detail, the dashboard and the stack views", async () => {
  t = await stackApp()
  const secret = "line-one-of-a-key\nend"
  await t.call("POST", "/api/stacks", {
    name: "demo",
    content: twoServices,
    env: [{ key: "TOKEN", value: secret, secret: true }],
  })
  const web = [...t.engine.containers.values()].find((c) => c.labels["com.docker.compose.service"] === "web")!
  web.labels.dsn = `pg://app:${secret}@db`
  const shown = async (path: string) => JSON.stringify(await (await t.call("GET", path)).json())
  for (const path of [
    "/api/containers",
    `/api/containers/${web.id}`,
    "/api/dashboard",
    "/api/stacks/demo",
    "/api/stacks",
  ]) {
    const text = await shown(path)
    expect([path, text.includes("line-one-of-a-key"), text.includes("pg://app:***@db")]).toEqual([path, false, true])
  }
  // Another project's containers are shown as the engine has them.
  t.engine.addContainer({ name: "loose", labels: { "com.docker.compose.project": "other", dsn: secret } })
  expect(await shown("/api/stacks/other")).toContain("line-one-of-a-key")
})
