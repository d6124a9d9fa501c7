import { afterEach, expect, test } from "bun:test"
import { existsSync, readdirSync } from "node:fs"
import { join } from "node:path"
import { stackApp, twoServices, type FakeCompose } from "../../../../support/compose.ts"
import type { TestApp } from "../../../../support/app.ts"

let t: TestApp & { compose: FakeCompose }
afterEach(() => t.close())

/** A compose project "shop" on the engine whose folder lies outside every SVC_BIND_ROOTS (there are none). */
async function app() {
  t = await stackApp()
  const labels = {
    "com.docker.compose.project": "shop",
    "com.docker.compose.service": "web",
    "com.docker.compose.project.working_dir": "/srv/shop",
    "com.docker.compose.project.config_files": "compose.yaml",
  }
  t.engine.addContainer({ name: "shop_web_1", labels })
  return t
}
const stackDirs = () => (existsSync(join(t.dataDir, "stacks")) ? readdirSync(join(t.dataDir, "stacks")) : [])

test("files that cannot be read here: the dry run names them; without dry_run 409 adopt_blocked with the plan, nothing written or run", async () => {
  await app()
  const dry = await t.call("POST", "/api/stacks/shop/adopt", { dry_run: true })
  expect(dry.status).toBe(200)
  const plan = await dry.json()
  expect(plan).toMatchObject({
    name: "shop",
    dry_run: true,
    stack: null,
    needed: [{ path: "/srv/shop/compose.yaml", as: "content" }],
    services: [],
  })
  expect(plan.blockers).toEqual([
    "/srv/shop/compose.yaml cannot be read here (outside SVC_BIND_ROOTS or missing): send it as content",
  ])
  const res = await t.call("POST", "/api/stacks/shop/adopt", {})
  expect(res.status).toBe(409)
  const blocked = await res.json()
  expect(blocked.error.code).toBe("adopt_blocked")
  expect(blocked.plan.needed).toEqual(plan.needed)
  expect(stackDirs()).toEqual([])
  expect(t.compose.calls).toEqual([])
})

test("bad input: a managed stack, an unknown project, traversal in file paths, an invalid name: 4xx, nothing written", async () => {
  await app()
  await t.ctx.stacks.deploy("web", { compose: twoServices, env: [{ key: "TOKEN", value: "t", secret: true }] })
  t.compose.calls = []
  const cases: [string, unknown, number, string][] = [
    ["web", {}, 409, "stack_exists"],
    ["nothing", {}, 404, "no_project"],
    ["shop", { content: twoServices, files: { "../escape": "x" } }, 400, "invalid_path"],
    ["shop", { content: twoServices, files: { "conf/../../x": "x" } }, 400, "invalid_path"],
    ["shop", { content: "services: [web\n  image: x" }, 400, "invalid_compose"],
    [
      "shop",
      { content: `services:\n  web:\n    image: x\nx: "${"y".repeat(1024 * 1024)}"\n` },
      413,
      "compose_too_large",
    ],
    ["Not%20A%20Name", {}, 400, "invalid_name"],
  ]
  for (const [name, body, status, code] of cases) {
    const res = await t.call("POST", `/api/stacks/${name}/adopt`, body)
    expect([name, res.status, (await res.json()).error.code]).toEqual([name, status, code])
  }
  expect(stackDirs()).toEqual(["web"])
  expect(t.compose.calls).toEqual([])
})
