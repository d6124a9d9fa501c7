import { describe, expect, test } from "bun:test"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { compilePath, renderManifest, routeOf } from "../../lib/manifest.ts"
import { handlerFiles } from "../../scripts/routes.ts"

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

describe("compilePath", () => {
  test("matches params and a catch-all, decoding them", () => {
    const match = compilePath("/api/nodes/:name/proxy/*", "path")
    expect(match("/api/nodes/n1/proxy/api/x%20y")).toEqual({ name: "n1", path: "api/x y" })
    expect(match("/api/nodes/n1/other")).toBeUndefined()
  })
})

test("the committed route manifest matches the handler files", async () => {
  const root = join(import.meta.dir, "../..")
  const committed = readFileSync(join(root, "lib/routes.gen.ts"), "utf8")
  expect(committed).toBe(renderManifest(await handlerFiles(root)))
})
