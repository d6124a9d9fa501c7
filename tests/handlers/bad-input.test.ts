// Bad input against every route of the manifest, generated from the routes themselves: traversal and
// junk in every path parameter, malformed JSON, wrong types for every body field, refused query
// values, non-JSON bodies, oversized bodies. Every answer must be a 4xx JSON error, never a 5xx or a
// hang, and the data directory must be byte for byte what it was.
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { createHash } from "node:crypto"
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import * as v from "valibot"
import type { RouteRow } from "../../lib/app.ts"
import { routeOf } from "../../lib/manifest.ts"
import { routes } from "../../lib/routes.gen.ts"
import { testApp, type TestApp } from "../support/app.ts"

const rows = (routes as unknown as RouteRow[]).filter((r) => r.method !== "WS")

const BAD_SEGMENTS = ["..", "%2e%2e", "..%2F..%2Fetc%2Fpasswd", "%2F", "a%00b", "x".repeat(300), "-rf", "%20", "a%5Cb"]

function wrongValue(schema: any): unknown {
  const inner = schema?.type === "optional" || schema?.type === "nullable" || schema?.type === "nullish" ? schema.wrapped : schema
  switch (inner?.type) {
    case "string":
    case "picklist":
    case "literal":
      return 12345
    case "number":
    case "boolean":
      return "not-a-value"
    case "array":
      return { not: "an array" }
    default:
      return ["unexpected"]
  }
}

/** One body per field with that field of the wrong type, plus bodies that are not objects at all. */
function wrongBodies(schema: any): unknown[] {
  const entries: Record<string, any> = schema?.entries ?? schema?.wrapped?.entries ?? {}
  const perField = Object.entries(entries).map(([key, s]) => ({ [key]: wrongValue(s) }))
  return [...perField, [], "a string", 42, null].filter((b) => !v.safeParse(schema, b).success)
}

function concretePath(file: string, replace?: { index: number; value: string }): string {
  const { path } = routeOf(file)
  let i = -1
  return path
    .split("/")
    .map((seg) => {
      if (!seg.startsWith(":") && seg !== "*") return seg
      i++
      if (replace && replace.index === i) return replace.value
      return seg === "*" ? "api/health" : "probe-1"
    })
    .join("/")
}

function checksum(dir: string): string {
  const hash = createHash("sha256")
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name)
      const st = statSync(p)
      hash.update(`${p}:${st.mode}\n`)
      if (st.isDirectory()) walk(p)
      else hash.update(readFileSync(p))
    }
  }
  walk(dir)
  return hash.digest("hex")
}

let t: TestApp
let before: string
beforeAll(async () => {
  t = await testApp()
  before = checksum(t.dataDir)
})
afterAll(() => t.close())

async function expectRefused(method: string, path: string, body?: unknown, headers?: Record<string, string>) {
  const res = await t.call(method, path, body, headers)
  const text = await res.text()
  if (res.status < 400 || res.status >= 500) throw new Error(`${method} ${path} ${JSON.stringify(body)?.slice(0, 80)} answered ${res.status}: ${text.slice(0, 200)}`)
  expect(JSON.parse(text).error).toMatchObject({ code: expect.any(String), message: expect.any(String) })
}

const methodOf = (r: RouteRow) => (r.method === "ALL" ? "POST" : r.method)
const hasParams = (r: RouteRow) => /\[/.test(r.file)

describe("path parameters", () => {
  for (const r of rows.filter(hasParams)) {
    const count = (r.file.match(/\[/g) ?? []).length
    test(`${r.method} ${routeOf(r.file).path}`, async () => {
      for (let index = 0; index < count; index++)
        for (const value of BAD_SEGMENTS) {
          if (routeOf(r.file).path.split("/").filter((s) => s.startsWith(":") || s === "*")[index] === "*") continue
          const method = methodOf(r)
          await expectRefused(method, concretePath(r.file, { index, value }), method === "GET" || method === "DELETE" ? undefined : {})
        }
    })
  }
})

describe("bodies", () => {
  for (const r of rows.filter((r) => r.mod.body)) {
    test(`${r.method} ${routeOf(r.file).path}`, async () => {
      const path = concretePath(r.file)
      await expectRefused(r.method, path, "{not json")
      await expectRefused(r.method, path, "x=1", { "content-type": "application/x-www-form-urlencoded" })
      await expectRefused(r.method, path, JSON.stringify({ pad: "x".repeat(t.ctx.config.maxJsonBody) }))
      for (const body of wrongBodies(r.mod.body)) await expectRefused(r.method, path, body)
    })
  }
})

describe("query values", () => {
  for (const r of rows.filter((r) => r.mod.query)) {
    test(`${r.method} ${routeOf(r.file).path}`, async () => {
      const entries: Record<string, unknown> = (r.mod.query as any).entries ?? {}
      for (const key of Object.keys(entries)) {
        const value = "not-a-value!"
        if (v.safeParse(r.mod.query as any, { [key]: value }).success) continue
        await expectRefused(r.method === "ALL" ? "GET" : r.method, `${concretePath(r.file)}?${key}=${encodeURIComponent(value)}`)
      }
    })
  }
})

test("the data directory is unchanged by all of it", () => {
  expect(checksum(t.dataDir)).toBe(before)
})
