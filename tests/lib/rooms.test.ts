// The rooms of lib/ keep to their own rules: each room's README.md says what it may import
// (`May import: a, b`), and the code is held to it. No file in lib/ imports another in a circle,
// lib/ never imports a handler or the route manifest, and code outside lib/ reaches it through the
// `#lib/*` alias.
import { describe, expect, test } from "bun:test"
import { existsSync, readFileSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"

const root = join(import.meta.dir, "../..")
const sources = (pattern: string) => Array.from(new Bun.Glob(pattern).scanSync({ cwd: root })).sort()
const libFiles = sources("lib/**/*.ts")
const rooms = [...new Set(libFiles.map((f) => f.split("/")[1]!))].sort()

/** Every module a file names: static imports and exports (type-only ones too), dynamic imports and requires (a part loaded by its first use). */
function specifiers(file: string): string[] {
  const src = readFileSync(join(root, file), "utf8")
  return [
    ...src.matchAll(
      /^\s*(?:import|export)\b[^"'`;]*?\bfrom\s*["']([^"']+)["']|\b(?:import|require)\s*\(\s*["']([^"']+)["']\s*\)|^\s*import\s*["']([^"']+)["']/gm,
    ),
  ].map((m) => (m[1] ?? m[2] ?? m[3])!)
}

/** The repository path a specifier names, or undefined for a package. */
function target(file: string, spec: string): string | undefined {
  if (spec.startsWith("#lib/")) return spec.slice(1)
  if (spec.startsWith(".")) return relative(root, resolve(root, dirname(file), spec))
}

const roomOf = (path: string) => (path.startsWith("lib/") ? path.split("/")[1] : undefined)

function mayImport(room: string): string[] | undefined {
  const readme = join(root, "lib", room, "README.md")
  if (!existsSync(readme)) return undefined
  const line = readFileSync(readme, "utf8").match(/^May import: (.*)$/m)?.[1]
  return line === undefined ? undefined : line === "nothing" ? [] : line.split(/,\s*/).map((r) => r.trim())
}

describe("each room", () => {
  test.each(rooms)("%s has a README.md saying what it owns and what it may import", (room) => {
    const allowed = mayImport(room)
    expect(allowed).toBeDefined()
    for (const r of allowed!) expect(rooms).toContain(r)
  })

  test.each(rooms)("%s imports only the rooms its README names", (room) => {
    const allowed = new Set(mayImport(room) ?? [])
    const stray = libFiles
      .filter((f) => roomOf(f) === room)
      .flatMap((f) => specifiers(f).map((s) => ({ f, t: target(f, s) })))
      .filter(({ t }) => t !== undefined && roomOf(t) !== undefined && roomOf(t) !== room && !allowed.has(roomOf(t)!))
      .map(({ f, t }) => `${f} -> ${t}`)
    expect(stray).toEqual([])
  })
})

test("no file of lib/ imports another in a circle", () => {
  const edges = new Map(
    libFiles.map((f) => [
      f,
      specifiers(f)
        .map((s) => target(f, s))
        .filter((t): t is string => !!t && t.startsWith("lib/")),
    ]),
  )
  // Depth-first search; a grey node met again closes a circle.
  const state = new Map<string, "grey" | "black">()
  const circles: string[] = []
  const visit = (f: string, path: string[]) => {
    state.set(f, "grey")
    for (const t of edges.get(f) ?? []) {
      if (state.get(t) === "grey") circles.push([...path.slice(path.indexOf(t)), t].join(" -> "))
      else if (!state.has(t)) visit(t, [...path, t])
    }
    state.set(f, "black")
  }
  for (const f of libFiles) if (!state.has(f)) visit(f, [f])
  expect(circles).toEqual([])
})

test("lib/ imports no handler and not the route manifest; outside lib/, lib is reached as #lib/", () => {
  const wrong = sources("{lib,handlers,ui,scripts,bench,tests}/**/*.ts")
    .concat("server.ts")
    .flatMap((f) => specifiers(f).map((s) => ({ f, s, t: target(f, s) })))
    .filter(({ f, s, t }) => {
      if (!t) return false
      if (f.startsWith("lib/")) return t.startsWith("handlers/") || t === "routes.gen.ts"
      return t.startsWith("lib/") && !s.startsWith("#lib/")
    })
    .map(({ f, s }) => `${f}: ${s}`)
  expect(wrong).toEqual([])
})

test("only the HTTP edge (lib/http, lib/service) and the UI know HttpError: the rooms, the handlers and the command line throw domain errors", () => {
  const wrong = sources("{lib,handlers}/**/*.ts")
    .concat("server.ts")
    .filter((f) => !f.startsWith("lib/http/") && !f.startsWith("lib/service/"))
    .filter((f) => /\bHttpError\b/.test(readFileSync(join(root, f), "utf8")))
  expect(wrong).toEqual([])
})

test("no code outside the orchestrator files asks which orchestrator a stack has: it asks the stack's orchestrator", () => {
  const orchestrators = ["lib/stacks/orchestrator.ts", "lib/stacks/compose-orchestrator.ts", "lib/stacks/swarm.ts"]
  const names = /[!=]==?\s*["'](compose|swarm)["']|["'](compose|swarm)["']\s*[!=]==?|case\s+["'](compose|swarm)["']/
  const wrong = sources("{lib,handlers}/**/*.ts")
    .concat("server.ts")
    .filter((f) => !orchestrators.includes(f))
    .flatMap((f) =>
      readFileSync(join(root, f), "utf8")
        .split("\n")
        .map((line, i) => `${f}:${i + 1}: ${line.trim()}`)
        .filter((line) => names.test(line)),
    )
  expect(wrong).toEqual([])
})
