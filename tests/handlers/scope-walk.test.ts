// Every route that creates or changes a stack, walked with callers limited to some stacks, by each
// kind of credential they could widen (a session, an API token, a gateway proof, MCP): an operator of
// "mine" (whose scope also names "new", a stack not made yet) changes "mine" and nothing else, and
// creates no stack by any route, as POST /api/stacks refuses them; a viewer, limited or not, changes
// nothing. After the walk no stack but the one made before it exists.
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import type { Identity } from "#lib/auth/identity.ts"
import { routeOf } from "#lib/http/manifest.ts"
import { gatewaySigner } from "#lib/service/access.ts"
import { loadRoutes, type RouteRow } from "#lib/service/handler.ts"
import { routes } from "../../routes.gen.ts"
import { authApp, type AuthTestApp } from "../support/auth.ts"
import { FakeCompose, twoServices } from "../support/compose.ts"
import { FakeEngine } from "../support/fake-engine.ts"

const CHANGES = new Set(["POST", "PUT", "PATCH", "DELETE"])
/** The routes that may create a stack (the walk below also checks that no other one did). */
const CREATING = new Set([
  "POST /api/stacks",
  "POST /api/stacks/import",
  "POST /api/stacks/:name/copy",
  "POST /api/stacks/:name/adopt",
  "PUT /api/stacks/:name/git",
  "POST /api/containers/adopt",
  "POST /api/backups/:repo/:stack/restore",
  "POST /api/catalog/templates/:source/:id/install",
])
/** A body each route would take, so that a refusal is the front door's and not the body's. */
const BODIES: Record<string, (stack: string) => unknown> = {
  "POST /api/stacks": (stack) => ({ name: stack, content: twoServices }),
  "POST /api/stacks/import": (stack) => ({ name: stack, compose: twoServices }),
  "POST /api/stacks/:name/copy": () => ({ as: "fresh" }),
  "POST /api/stacks/:name/adopt": () => ({ content: twoServices }),
  "PUT /api/stacks/:name/git": () => ({ url: "/nowhere/repo.git", path: "compose.yaml" }),
  "POST /api/containers/adopt": (stack) => ({ containers: ["c1"], stack }),
  "POST /api/backups/:repo/:stack/restore": () => ({}),
  "POST /api/catalog/templates/:source/:id/install": (stack) => ({ name: stack }),
  "POST /api/stacks/:name/apply": () => ({}),
  "PUT /api/stacks/:name/env": () => [{ key: "K", value: "v" }],
  "PUT /api/stacks/:name/files/*": () => ({ content: "x" }),
  "PUT /api/stacks/:name/policy": () => ({ mode: "notify" }),
}

const all = await loadRoutes(routes)
const walked = all.filter((r) => {
  const key = `${r.method} ${routeOf(r.file).path}`
  return (
    CHANGES.has(r.method) && r.mod.role !== "public" && (key.startsWith(`${r.method} /api/stacks`) || CREATING.has(key))
  )
})
const keyOf = (r: RouteRow) => `${r.method} ${routeOf(r.file).path}`
const pathOf = (r: RouteRow, stack: string) =>
  routeOf(r.file)
    .path.replace(":name", stack)
    .replace(":stack", stack)
    .replace(":repo", "r")
    .replace(":source", "curated")
    .replace(":id", "vaultwarden")
    .replace(":version", "1")
    .replace("*", "x.txt")

let t: AuthTestApp
const as: Record<string, Record<string, string>> = {}

beforeAll(async () => {
  const engine = new FakeEngine()
  t = await authApp({}, { engine, compose: new FakeCompose(engine) })
  await t.addUser("root", "admin")
  await t.addUser("lop", "operator", ["mine", "new"])
  await t.addUser("lvi", "viewer", ["mine"])
  await t.addUser("vic", "viewer")
  await t.addUser("ops", "operator")
  await t.addUser("lad", "admin", ["mine"])
  const root = await t.signIn("root")
  expect((await t.call("POST", "/api/stacks", { name: "mine", content: twoServices }, { cookie: root })).status).toBe(
    201,
  )
  for (const user of ["lop", "lvi", "vic", "lad"]) as[user] = { cookie: await t.signIn(user) }
  as["lop's token"] = { authorization: `Bearer ${(await t.token(as.lop!.cookie!)).token}` }
  // An unlimited operator's token limited to "mine" and "new": a credential narrower than its owner.
  const narrow = await t.token(await t.signIn("ops"), { stacks: ["mine", "new"] })
  as["a token limited by its maker"] = { authorization: `Bearer ${narrow.token}` }
})
afterAll(() => t.close())

async function statusOf(r: RouteRow, stack: string, headers: Record<string, string>): Promise<number> {
  const res = await t.call(r.method, pathOf(r, stack), BODIES[keyOf(r)]?.(stack), headers)
  await res.body?.cancel()
  return res.status
}

test("the walk covers every route that may create a stack", () => {
  expect(
    walked
      .map(keyOf)
      .filter((k) => CREATING.has(k))
      .sort(),
  ).toEqual([...CREATING].sort())
})

describe.each(["lop", "lop's token", "a token limited by its maker"])("an operator of mine, by %s", (who) => {
  test.each(walked.map((r) => [keyOf(r), r] as const))("%s", async (_, r) => {
    const admin = r.mod.role === "admin"
    const creates = CREATING.has(keyOf(r))
    for (const stack of ["mine", "new", "other"]) {
      const status = await statusOf(r, stack, as[who]!)
      const underName = routeOf(r.file).path.includes(":name") || routeOf(r.file).path.includes(":stack")
      const refused = admin || creates || stack === "other" || !underName
      // A refusal is a 403; otherwise the route answers whatever it does with this input.
      expect({ stack, status: status === 403 ? 403 : "through" }).toEqual({ stack, status: refused ? 403 : "through" })
    }
  })
})

describe.each(["lvi", "vic"])("a viewer (%s) changes nothing", (who) => {
  test.each(walked.map((r) => [keyOf(r), r] as const))("%s", async (_, r) => {
    for (const stack of ["mine", "other"]) expect(await statusOf(r, stack, as[who]!)).toBe(403)
  })
})

test("an admin limited to mine reaches no route outside it, the gateway included; the gateway signs no proof for one limited", async () => {
  expect((await t.call("POST", "/api/stacks", { name: "fresh", content: twoServices }, as.lad)).status).toBe(403)
  expect((await t.call("GET", "/api/nodes/any/proxy/api/stacks", undefined, as.lad)).status).toBe(403)
  expect((await t.call("GET", "/api/users", undefined, as.lad)).status).toBe(403)
  expect((await t.call("POST", "/api/cluster/token", undefined, { cookie: await t.signIn("root") })).status).toBe(201)
  const signerFor = (identity: Identity) => {
    const request = new Request("http://127.0.0.1/")
    t.ctx.auth.mark(request, { identity })
    return gatewaySigner(t.ctx, request)
  }
  expect(await signerFor({ user: "root", role: "admin", source: "local" })).toBeFunction()
  expect(await signerFor({ user: "lad", role: "admin", source: "local", stacks: ["mine"] })).toBeUndefined()
})

test("after the walk, no stack but the one made before it exists (which its operator may have removed)", async () => {
  expect(t.ctx.stacks.names().filter((name) => name !== "mine")).toEqual([])
})
