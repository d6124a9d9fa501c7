import { afterEach, expect, test } from "bun:test"
import { STACK_LABEL } from "#lib/engine/containers.ts"
import { stackApp, twoServices, type FakeCompose } from "../../../support/compose.ts"
import type { TestApp } from "../../../support/app.ts"
import { bearer, withToken } from "../../../support/token.ts"

let t: TestApp & { compose: FakeCompose }
afterEach(() => t.close())

const env = [{ key: "TOKEN", value: "s3cret", secret: true }]
const version = (n: number) => ({
  version: n,
  time: "2026-01-01T00:00:00.000Z",
  action: "deploy",
  compose: twoServices,
  env,
  changes: { from: null, compose: true, env: { added: ["TOKEN"], removed: [], changed: [] } },
})
const doc = (over: Record<string, unknown> = {}) => ({
  format: "harbormaster.stack/1",
  name: "copy",
  compose: twoServices,
  env,
  versions: [version(1), version(2)],
  current_version: 2,
  images: ["busybox"],
  ...over,
})

async function app() {
  t = await stackApp()
  withToken(t.dataDir)
  return t
}

test("writes the stack under its name, versions and secrets included, without starting it (201)", async () => {
  await app()
  const res = await t.call("POST", "/api/stacks/import", doc(), bearer)
  expect(res.status).toBe(201)
  expect(await res.json()).toEqual({ name: "copy", current_version: 2, versions: [1, 2], env_pending: false })
  const stack = await t.ctx.stacks.read("copy")
  expect(stack.env).toEqual(env)
  expect(stack.compose).toBe(twoServices)
  expect(stack.versions.map((v) => v.version)).toEqual([1, 2])
  expect(t.compose.calls).toEqual([])
  expect(t.engine.containers.size).toBe(0)
})

test.each([
  ["no token", {}, doc(), 401, undefined],
  ["a current_version missing from versions", bearer, doc({ current_version: 3 }), 400, "invalid_import"],
  ["an invalid name", bearer, doc({ name: "../etc" }), 400, "invalid_name"],
  [
    "a version number that is not a number",
    bearer,
    doc({ versions: [{ ...version(1), version: "../../x" }] }),
    400,
    "invalid_request",
  ],
  ["a compose file that does not parse", bearer, doc({ compose: "services: [" }), 400, "invalid_compose"],
  [
    "a compose file over 1 MiB",
    bearer,
    doc({ compose: `${twoServices}x-pad: "${"y".repeat(1024 * 1024)}"\n` }),
    413,
    "compose_too_large",
  ],
  [
    "a version's compose file over 1 MiB",
    bearer,
    doc({ versions: [version(1), { ...version(2), compose: "x".repeat(1024 * 1024 + 1) }] }),
    413,
    "compose_too_large",
  ],
])("%s is refused and nothing is written", async (_what, headers, body, status, code) => {
  await app()
  const res = await t.call("POST", "/api/stacks/import", body, headers)
  expect(res.status).toBe(status)
  if (code) expect((await res.json()).error.code).toBe(code)
  expect(t.ctx.stacks.names()).toEqual([])
})

test("a name with files present or a compose project of that name on the engine is refused (409)", async () => {
  await app()
  expect((await t.call("POST", "/api/stacks/import", doc(), bearer)).status).toBe(201)
  const again = await t.call("POST", "/api/stacks/import", doc({ env: [] }), bearer)
  expect(again.status).toBe(409)
  expect((await again.json()).error.code).toBe("stack_exists")
  expect((await t.ctx.stacks.read("copy")).env).toEqual(env)
  t.engine.addContainer({ name: "other_app_1", labels: { [STACK_LABEL]: "other" } })
  const taken = await t.call("POST", "/api/stacks/import", doc({ name: "other" }), bearer)
  expect(taken.status).toBe(409)
  expect((await taken.json()).error.code).toBe("name_taken")
  expect(t.ctx.stacks.names()).toEqual(["copy"])
})
