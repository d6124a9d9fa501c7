import { describe, expect, test } from "bun:test"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { routeOf } from "#lib/http/manifest.ts"
import { manifest } from "../../../scripts/routes.ts"

describe("routeOf", () => {
  test.each([
    ["handlers/api/health.get.ts", "GET", "/api/health", undefined],
    ["handlers/api/stacks/[name]/env.get.ts", "GET", "/api/stacks/:name/env", undefined],
    ["handlers/api/stacks/index.post.ts", "POST", "/api/stacks", undefined],
    ["handlers/api/containers/[id]/shell.ws.ts", "WS", "/api/containers/:id/shell", undefined],
    ["handlers/api/nodes/[name]/proxy/[...path].ts", "ALL", "/api/nodes/:name/proxy/*", "path"],
  ])("%s is %s %s", (file, method, path, rest) => {
    expect(routeOf(file)).toEqual({ method, path, ...(rest ? { rest } : {}) } as any)
  })
})

test("the committed route manifest matches the handler files, with the role and access each declares", async () => {
  const root = join(import.meta.dir, "../../..")
  const committed = readFileSync(join(root, "routes.gen.ts"), "utf8")
  expect(committed).toBe(await manifest(root))
})
