// The docs cannot drift from the code: the blocks scripts/docs.ts writes (the configuration tables
// from lib/service/variables.ts, the route reference from /openapi) are what it would write now,
// every variable the code reads is in the table, the hand-written answers fit their routes' response
// schemas, every route a page names exists, every link between the pages resolves, and the README
// stays a short front page.
import { describe, expect, test } from "bun:test"
import { existsSync, readFileSync } from "node:fs"
import { dirname, join, normalize } from "node:path"
import { check, docFiles, examples, render, root } from "../../scripts/docs.ts"
import { VARIABLES } from "#lib/service/variables.ts"
import { routeOf } from "#lib/http/manifest.ts"
import { routes } from "../../routes.gen.ts"

const read = (file: string) => readFileSync(join(root, file), "utf8")
const pages = docFiles()

describe("generated blocks", () => {
  test.each(pages)("%s is what `bun scripts/docs.ts` writes", (file) => {
    const text = read(file)
    expect(render(text)).toBe(text)
  })

  test("the configuration table and the route reference are there", () => {
    expect(read("docs/operations.md")).toContain("<!-- generated: config -->")
    expect(read("docs/api.md")).toContain("<!-- generated: routes -->")
    for (const name of Object.keys(VARIABLES)) expect(read("docs/operations.md")).toContain(`| \`${name}\` |`)
    expect(read("docs/api.md")).toContain("| GET | `/api/stacks/{name}` |")
  })

  test("a page whose block was edited by hand differs from what the script writes", () => {
    const page = read("docs/operations.md")
    const edited = page.replace("| `SVC_LOGS_TAIL` | `100` |", "| `SVC_LOGS_TAIL` | `200` |")
    expect(edited).not.toBe(page)
    expect(render(edited)).toBe(page)
  })
})

describe("configuration variables", () => {
  const code = Array.from(new Bun.Glob("{lib,handlers}/**/*.ts").scanSync({ cwd: root })).concat("server.ts")
  const read_ = code.flatMap((f) => [...read(f).matchAll(/\benv\.((?:SVC|DOCKER)_[A-Z0-9_]+)/g)].map((m) => m[1]!))

  test("every variable the code reads is declared in lib/service/variables.ts", () => {
    const undeclared = [...new Set(read_)].filter((name) => !(name in VARIABLES))
    expect(undeclared).toEqual([])
  })

  test("every declared variable is read somewhere", () => {
    const unread = Object.keys(VARIABLES).filter(
      (name) => !read_.includes(name) && !read("lib/service/config.ts").includes(`"${name}"`),
    )
    expect(unread).toEqual([])
  })
})

describe("hand-written answers", () => {
  const all = pages.flatMap((file) => examples(file, read(file)))

  test("every answer that is whole JSON fits its route's response schema", () => {
    const wrong = all.flatMap((ex) => {
      const verdict = check(ex)
      return verdict.checked && verdict.why ? [`${ex.file}:${ex.line} ${ex.method} ${ex.path}: ${verdict.why}`] : []
    })
    expect(wrong).toEqual([])
    // The check reads the pages: it finds the marked blocks and the answers under curl calls.
    expect(all.filter((ex) => ex.marked).length).toBeGreaterThanOrEqual(4)
    expect(all.filter((ex) => check(ex).checked).length).toBeGreaterThanOrEqual(28)
    expect(all.filter((ex) => !check(ex).checked).map((ex) => `${ex.file}:${ex.line}`)).toEqual([])
  })

  test("an answer that does not fit its route is caught, marked or under a curl call", () => {
    const page = [
      "```sh",
      'curl -s -X POST localhost:8080/api/cluster/token   # {"tokn":"q3v"}',
      "curl -s localhost:8080/api/stacks/shop/env",
      '# [{"key":"MODE","value":3,"secret":false}]',
      "```",
      "",
      "<!-- response: GET /api/audit 200 entries[] -->",
      "```json",
      '{"id": 1}',
      "```",
      "",
      "<!-- response: GET /api/no-such-route -->",
      "```json",
      "{}",
      "```",
    ].join("\n")
    const found = examples("page.md", page)
    expect(found.map((ex) => [ex.method, ex.path, ex.marked])).toEqual([
      ["POST", "/api/cluster/token", false],
      ["GET", "/api/stacks/shop/env", false],
      ["GET", "/api/audit", true],
      ["GET", "/api/no-such-route", true],
    ])
    const verdicts = found.map(check)
    expect(verdicts.every((v) => v.checked && v.why)).toBe(true)
    expect(verdicts[0]!.why).toContain("token")
    expect(verdicts[1]!.why).toContain("value")
    expect(verdicts[3]!.why).toBe("no route GET /api/no-such-route")
  })

  test("an answer elided with … is checked on the parts it shows, and prose after a curl call is no answer", () => {
    const page = [
      "```sh",
      "curl -s localhost:8080/api/stacks/shop/env",
      '# [{"key":"MODE",…}, …]',
      "curl -s localhost:8080/api/stacks/shop",
      '# {"name":"shop","managed":"yes","services":[{"name":"web","containers":[{…}]}], …}',
      "curl -s localhost:8080/api/stacks   # every stack",
      "```",
    ].join("\n")
    const found = examples("page.md", page)
    expect(found.map((ex) => ex.path)).toEqual(["/api/stacks/shop/env", "/api/stacks/shop"])
    expect(check(found[0]!)).toEqual({ checked: true, why: undefined })
    expect(check(found[1]!)).toEqual({ checked: true, why: 'managed: "yes" is not boolean' })
  })
})

describe("routes named in the pages", () => {
  const patterns = routes.map((r) => ({
    method: r.method as string,
    path: new RegExp(
      `^${routeOf(r.file)
        .path.replace(/:[^/]+/g, "[^/]+")
        .replace("*", ".*")}$`,
    ),
  }))
  const exists = (method: string, path: string) =>
    ["/openapi", "/mcp"].includes(path) ||
    patterns.some(
      (p) =>
        (p.method === method || p.method === "ALL" || method === "any" || (p.method === "WS" && method === "GET")) &&
        p.path.test(path),
    )

  test.each(pages)("every route %s names (`GET /api/...`, a table's method and path) exists", (file) => {
    const unknown: string[] = []
    for (const m of read(file).matchAll(
      /(?:\| (GET|POST|PUT|PATCH|DELETE|WS|any) \| `|`(GET|POST|PUT|PATCH|DELETE) |\b(GET|POST|PUT|PATCH|DELETE) `)(\/(?:api|metrics|openapi|mcp)[^\s`)|]*)/g,
    )) {
      const method = (m[1] ?? m[2] ?? m[3])!
      const path = m[4]!
        .split("?")[0]!
        .replace(/\{[^}]+\}/g, "x")
        .replace(/\/$/, "")
      if (!exists(method, path)) unknown.push(`${method} ${m[4]}`)
    }
    expect(unknown).toEqual([])
  })
})

describe("pages and links", () => {
  const slug = (heading: string) =>
    heading
      .trim()
      .toLowerCase()
      .replace(/[^\w\- ]/g, "")
      .replace(/ /g, "-")
  const anchors = (file: string) => {
    let fence = false
    const found = new Set<string>()
    for (const line of read(file).split("\n")) {
      if (line.startsWith("```")) fence = !fence
      const m = !fence && /^#+ (.*)$/.exec(line)
      if (m) found.add(slug(m[1]!))
    }
    return found
  }

  test.each(pages)("every relative link of %s resolves, anchors included", (file) => {
    const broken: string[] = []
    for (const [, url] of read(file).matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(url!)) continue
      const [path, anchor] = url!.split("#")
      const target = path ? normalize(join(dirname(file), path)) : file
      if (!existsSync(join(root, target))) broken.push(url!)
      else if (anchor && target.endsWith(".md") && !anchors(target).has(anchor)) broken.push(url!)
    }
    expect(broken).toEqual([])
  })

  test("the README is under 10 KB and links every page of docs/", () => {
    const readme = read("README.md")
    expect(Buffer.byteLength(readme)).toBeLessThan(10 * 1024)
    const unlinked = pages.filter((p) => p.startsWith("docs/") && !readme.includes(`](${p})`))
    expect(unlinked).toEqual([])
  })

  test("CI runs the README's test command", () => {
    const command = /^(bash scripts\/test\.sh)\b/m.exec(read("README.md"))?.[1]
    expect(command).toBe("bash scripts/test.sh")
    const ci = read(".ci/run").trim().split("\n").at(-1)
    expect(ci).toBe(command)
  })
})
