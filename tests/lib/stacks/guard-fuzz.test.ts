// The host-path guard against compose files generated adversarially, with the real compose CLIs
// (v1 and v2; `config` needs no engine): host paths written every way compose reads them (short and
// long syntax, volumes bound to a device, env_file, secrets, build contexts), through variables with
// defaults, `~`, `..`, anchors and merge keys, links in the stack's folder. Whatever the guard lets
// through, every path in the model compose will run (run.json) lies in the stack's folder or under
// SVC_BIND_ROOTS, and nothing else of the data directory; whatever it refuses is a clear 400.
import { afterAll, expect, test } from "bun:test"
import fc from "fast-check"
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { isAbsolute, join } from "node:path"
import { DomainError } from "#lib/errors/errors.ts"
import { within } from "#lib/stacks/host-paths.ts"
import { candidateModel } from "#lib/stacks/model.ts"
import { realRunner } from "../../support/host-path-cases.ts"

const base = realpathSync(mkdtempSync(join(tmpdir(), "hm-guard-fuzz-")))
const dataDir = join(base, "data")
const projectDir = join(dataDir, "stacks", "fuzz")
const root = join(base, "allowed")
const outside = join(base, "outside")
for (const d of [join(projectDir, "data"), join(dataDir, "records", "other"), root, outside])
  mkdirSync(d, { recursive: true })
writeFileSync(join(outside, "secret"), "outside\n")
// Links a container could have planted in the stack's data.
symlinkSync(outside, join(projectDir, "data", "out"))
symlinkSync(join(dataDir, "records"), join(projectDir, "data", "kept"))
symlinkSync("..", join(projectDir, "data", "loop"))
afterAll(() => rmSync(base, { recursive: true, force: true }))

/** A host path, written as a user or an attacker might. */
const hostPath = fc.oneof(
  fc.constantFrom(
    ".",
    "./data",
    "data/x",
    "./data/out",
    "./data/out/y",
    "./data/kept",
    "./data/loop",
    "./data/loop/stacks",
    "..",
    "../..",
    "../other",
    "~",
    "~/.ssh",
  ),
  fc.constantFrom(
    "/",
    "/etc",
    "/var/run/docker.sock",
    outside,
    join(outside, "secret"),
    root,
    join(root, "sub"),
    dataDir,
    join(dataDir, "records"),
    join(dataDir, "stacks"),
  ),
  fc.constantFrom(
    "${NOPE:-/etc}",
    "${HOME}",
    "${ROOT}/sub",
    "${DATA:-./data}",
    "$${X}",
    `\${NOPE:-${outside}}`,
    "${NOPE-..}",
  ),
  fc
    .tuple(fc.constantFrom(".", "./data", root, ".."), fc.constantFrom("a", "..", "../..", "out", "b/../.."))
    .map(([a, b]) => `${a}/${b}`),
)

const quote = (s: string) => JSON.stringify(s)

/** One way a service (or the file) names a host path. */
const use = fc.oneof(
  hostPath.map((p) => ({ service: `    volumes: [${quote(`${p}:/mnt`)}]\n` })),
  hostPath.map((p) => ({ service: `    volumes: [{type: bind, source: ${quote(p)}, target: /mnt}]\n` })),
  hostPath.map((p) => ({
    service: `    volumes: ["dv:/mnt"]\n`,
    top: `volumes:\n  dv: {driver_opts: {type: none, o: bind, device: ${quote(p)}}}\n`,
  })),
  hostPath.map((p) => ({ service: `    secrets: [s]\n`, top: `secrets:\n  s: {file: ${quote(p)}}\n` })),
  hostPath.map((p) => ({ service: `    env_file: [${quote(p)}]\n` })),
  hostPath.map((p) => ({ service: `    build: {context: ${quote(p)}}\n` })),
  hostPath.map((p) => ({ anchor: `x-v: &v\n  volumes: [${quote(`${p}:/mnt`)}]\n`, service: "    <<: *v\n" })),
)

const composeFile = fc.array(use, { minLength: 1, maxLength: 3 }).map((uses) => {
  const anchors = uses.flatMap((u) => ("anchor" in u && u.anchor ? [u.anchor] : []))
  const services = uses.map((u, i) => `  s${i}:\n    image: busybox\n${u.service}`).join("")
  const tops = uses.flatMap((u) => ("top" in u && u.top ? [u.top] : []))
  return `${anchors.slice(0, 1).join("")}services:\n${services}${tops.join("")}`
})

/** Every string of compose's model that names an absolute host path where compose reads or mounts one. */
function modelPaths(model: unknown): string[] {
  const out: string[] = []
  const walk = (v: unknown, key = ""): void => {
    if (typeof v === "string") {
      if (["source", "device", "file", "context", "path", "env_file"].includes(key) && isAbsolute(v)) out.push(v)
      // v1 prints short-syntax binds as "source:target:mode".
      if (key === "volumes" && v.startsWith("/")) out.push(v.split(":")[0]!)
    } else if (Array.isArray(v)) v.forEach((x) => walk(x, key))
    else if (v && typeof v === "object") for (const [k, x] of Object.entries(v)) walk(x, k)
  }
  walk(model)
  return out
}

const inside = (p: string) => {
  let real = p
  try {
    real = realpathSync(p)
  } catch {
    // not on disk: as written (compose made it absolute)
  }
  return (within(real, realpathSync(projectDir)) || within(real, root)) && !within(real, join(dataDir, "records"))
}

for (const flavour of ["v1", "v2"] as const) {
  const { runner, missing } = realRunner(flavour)
  test.skipIf(!runner)(
    `compose ${flavour}: what the guard lets through reaches only the stack's folder and the roots ${missing ?? ""}`,
    async () => {
      const seen = { accepted: 0, refused: 0 }
      await fc.assert(
        fc.asyncProperty(composeFile, async (compose) => {
          const env = [{ key: "ROOT", value: root, secret: false }]
          try {
            const { run } = await candidateModel(runner!, {
              project: { name: "fuzz", dir: projectDir, env },
              compose,
              roots: [root],
              dataDir,
            })
            const escaped = modelPaths(JSON.parse(run)).filter((p) => !inside(p))
            expect([compose, escaped]).toEqual([compose, []])
            seen.accepted++
          } catch (err) {
            if (!(err instanceof DomainError)) throw err
            expect([compose, err.kind]).toEqual([compose, "invalid"])
            seen.refused++
          }
        }),
        { numRuns: 60 },
      )
      // Both sides were tried: files the guard let through (and compose's model was walked) and refusals.
      expect(seen.accepted).toBeGreaterThan(0)
      expect(seen.refused).toBeGreaterThan(0)
    },
    300_000,
  )
}
