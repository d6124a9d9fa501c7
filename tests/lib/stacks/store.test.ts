import { afterEach, beforeEach, expect, test } from "bun:test"
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { parse } from "yaml"
import { FakeEngine } from "../../support/fake-engine.ts"
import { DomainError, type ErrorKind } from "#lib/errors/errors.ts"
import { Stacks } from "#lib/stacks/store.ts"
import { FakeCompose, twoServices } from "../../support/compose.ts"
import { watchFileReads } from "../../support/file-reads.ts"
import { isSealed, readOpened } from "#lib/data/sealed.ts"

let dataDir: string
let engine: FakeEngine
let compose: FakeCompose
let stacks: Stacks

beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), "hm-stacks-"))
  engine = new FakeEngine()
  compose = new FakeCompose(engine)
  stacks = new Stacks(dataDir, compose, { engine, now: () => Date.parse("2026-01-01T00:00:00Z") })
})
afterEach(() => rmSync(dataDir, { recursive: true, force: true }))

const secret = [{ key: "TOKEN", value: "t0ken-one", secret: true }]
const mode = (path: string) => statSync(path).mode & 0o777
const fails = async (p: Promise<unknown>, kind: ErrorKind) => {
  const err = await p.then(
    () => undefined,
    (e) => e,
  )
  expect(err).toBeInstanceOf(DomainError)
  expect((err as DomainError).kind).toBe(kind)
  return err as DomainError
}

test("a deploy writes the files (secrets sealed, 0600), checks with config first, and adds version 1", async () => {
  const { stack, created } = await stacks.deploy("web", { compose: twoServices, env: secret })
  expect(created).toBe(true)
  const dir = join(dataDir, "stacks/web")
  expect(compose.calls.map((c) => c.args[0])).toEqual(["up"])
  // compose resolves the candidate in a folder laid out as the stack's will be, never in the stack's own
  expect(compose.configCalls.map((c) => [c.project, c.dir === dir, c.files])).toEqual([["web", false, {}]])
  // The services as compose's model names them: views read them here, not by parsing the file again.
  expect(stack.state).toMatchObject({
    current_version: 1,
    env_pending: false,
    last_version: 1,
    services: Object.keys(parse(twoServices).services),
  })
  // What the service keeps lies in the stack's records, out of the folder its containers may bind.
  const rec = join(dataDir, "records/web")
  expect(readdirSync(dir)).toEqual([])
  expect(readFileSync(join(rec, "compose.yaml"), "utf8")).toBe(twoServices)
  // Secrets are sealed at rest; the env file compose reads is rendered into its room, never kept.
  expect(existsSync(join(rec, ".env"))).toBe(false)
  for (const f of ["env.json", "run.json", "versions/1.json"]) {
    expect(mode(join(rec, f))).toBe(0o600)
    expect(isSealed(readFileSync(join(rec, f), "utf8"))).toBe(true)
    expect(readFileSync(join(rec, f), "utf8")).not.toContain("t0ken-one")
  }
  expect(JSON.parse(readOpened(join(rec, "env.json"))!)).toEqual(secret)
  // compose runs the model it printed on the check, not a file in the stack's folder
  expect(compose.calls[0]!.compose).toBe(readOpened(join(rec, "run.json"))!)
  expect(Object.keys(JSON.parse(compose.calls[0]!.compose).services)).toEqual(Object.keys(parse(twoServices).services))
  expect(stack.versions[0]).toMatchObject({ version: 1, action: "deploy", compose: twoServices, env: secret })
  expect(stacks.names()).toEqual(["web"])
})

test("broken YAML and a file compose refuses are 400 and write nothing", async () => {
  const err = await fails(stacks.deploy("web", { compose: "services: [unclosed", env: secret }), "invalid")
  expect(err.message).toContain("does not parse")
  compose.failures.set("config", "Unsupported config option for services.app: 'servces'")
  expect((await fails(stacks.deploy("web", { compose: twoServices, env: secret }), "invalid")).message).toContain(
    "servces",
  )
  expect(existsSync(join(dataDir, "stacks/web"))).toBe(false)
  expect(existsSync(join(dataDir, "stacks")) ? readdirSync(join(dataDir, "stacks")) : []).toEqual([])
})

test("a refused redeploy leaves the previous files, environment and version", async () => {
  await stacks.deploy("web", { compose: twoServices, env: secret })
  compose.failures.set("config", "refused")
  await fails(
    stacks.deploy("web", {
      compose: "services:\n  other:\n    image: x\n",
      env: [{ key: "TOKEN", value: "two", secret: true }],
    }),
    "invalid",
  )
  const stack = await stacks.read("web")
  expect(stack.compose).toBe(twoServices)
  expect(stack.env).toEqual(secret)
  expect(stack.versions.map((v) => v.version)).toEqual([1])
})

test("when up fails the previous files come back and the previous version is brought up again", async () => {
  await stacks.deploy("web", { compose: twoServices, env: secret })
  compose.failures.set("up", "port is already allocated")
  const err = await fails(
    stacks.deploy("web", {
      compose: "services:\n  other:\n    image: x\n",
      env: [{ key: "TOKEN", value: "t0ken-two", secret: true }],
    }),
    "upstream",
  )
  expect(err.message).toContain("port is already allocated")
  compose.failures.clear()
  const stack = await stacks.read("web")
  expect(stack.compose).toBe(twoServices)
  expect(JSON.parse(readOpened(join(dataDir, "records/web/env.json"))!)).toEqual(secret)
  expect(stack.state.current_version).toBe(1)
  const undo = compose.calls.at(-1)!
  expect(undo.args[0]).toBe("up")
  expect(Object.keys(JSON.parse(undo.compose).services)).toEqual(Object.keys(parse(twoServices).services))
  expect(undo.env).toEqual({ TOKEN: "t0ken-one" })
})

test("a new stack whose up fails is taken down and leaves no files", async () => {
  compose.failures.set("up", "no such image")
  await fails(stacks.deploy("web", { compose: twoServices, env: secret }), "upstream")
  expect(compose.calls.at(-1)!.args[0]).toBe("down")
  expect(existsSync(join(dataDir, "stacks/web"))).toBe(false)
})

test("env, apply, rollback and version deletion follow the version rules", async () => {
  await stacks.deploy("web", { compose: twoServices, env: secret })
  let stack = await stacks.setEnv("web", [
    { key: "TOKEN", value: "t0ken-two" },
    { key: "MODE", value: "fast" },
  ])
  expect(stack.state.env_pending).toBe(true)
  expect(stack.env).toEqual([
    { key: "TOKEN", value: "t0ken-two", secret: true },
    { key: "MODE", value: "fast", secret: false },
  ])
  expect((await stacks.setEnv("web", [{ key: "TOKEN", value: "t0ken-one" }])).state.env_pending).toBe(false)
  await stacks.setEnv("web", [{ key: "TOKEN", value: "t0ken-two" }])
  expect(compose.calls.map((c) => c.args[0])).toEqual(["up"])

  stack = await stacks.apply("web")
  expect(stack.state).toMatchObject({ current_version: 2, env_pending: false })
  expect(stack.versions[1]).toMatchObject({
    version: 2,
    action: "apply",
    changes: { from: 1, compose: false, env: { added: [], removed: [], changed: ["TOKEN"] } },
  })
  expect(compose.calls.at(-1)!.env).toEqual({ TOKEN: "t0ken-two" })

  stack = await stacks.rollback("web", 1)
  expect(stack.state.current_version).toBe(1)
  expect(stack.env).toEqual(secret)
  expect(stack.versions.map((v) => v.version)).toEqual([1, 2])
  expect(compose.calls.at(-1)!.env).toEqual({ TOKEN: "t0ken-one" })

  await fails(stacks.deleteVersion("web", 1), "conflict")
  await fails(stacks.deleteVersion("web", 7), "not_found")
  await fails(stacks.rollback("web", 7), "not_found")
  await stacks.deleteVersion("web", 2)
  const redeployed = await stacks.deploy("web", { compose: twoServices })
  expect(redeployed.created).toBe(false)
  stack = redeployed.stack
  expect(stack.versions.map((v) => v.version)).toEqual([1, 3])
  expect(stack.env).toEqual(secret)
})

test("two deploys of one stack run one after the other; another stack is not held up", async () => {
  let release!: () => void
  compose.gate = new Promise((r) => (release = r))
  const first = stacks.deploy("web", { compose: twoServices, env: secret })
  const second = stacks.deploy("web", {
    compose: twoServices,
    env: [{ key: "TOKEN", value: "t0ken-two", secret: true }],
  })
  const other = stacks.deploy("api", { compose: twoServices })
  // Until the other stack's deploy, asked after the second, is at its up (however slow the machine):
  // the second, held by the lock, has not reached compose meanwhile.
  const ups = (project: string) => compose.calls.filter((c) => c.project === project && c.args[0] === "up").length
  while (ups("web") < 1 || ups("api") < 1) await Bun.sleep(1)
  expect(compose.calls.filter((c) => c.project === "web").map((c) => c.args[0])).toEqual(["up"])
  expect(compose.configCalls.filter((c) => c.project === "web").length).toBe(1)
  expect(compose.calls.filter((c) => c.project === "api").map((c) => c.args[0])).toEqual(["up"])
  release()
  await Promise.all([first, second, other])
  expect(compose.calls.filter((c) => c.project === "web").map((c) => c.args[0])).toEqual(["up", "up"])
  expect(compose.configCalls.filter((c) => c.project === "web").length).toBe(2)
  const stack = await stacks.read("web")
  expect(stack.versions.map((v) => v.version)).toEqual([1, 2])
  expect(stack.state.current_version).toBe(2)
  expect(stack.env[0]!.value).toBe("t0ken-two")
})

test("an imported stack is written without deploying, and up adds no version", async () => {
  const { stack: source } = await stacks.deploy("web", { compose: twoServices, env: secret })
  const before = compose.calls.length
  const imported = await stacks.importStack({
    name: "web-copy",
    compose: source.compose,
    env: source.env,
    versions: source.versions,
    current_version: 1,
  })
  expect(compose.calls.length).toBe(before)
  expect(imported).toMatchObject({
    compose: twoServices,
    env: secret,
    state: { current_version: 1, env_pending: false, last_version: 1 },
  })
  await fails(
    stacks.importStack({ name: "web-copy", compose: twoServices, env: [], versions: [], current_version: null }),
    "conflict",
  )
  await fails(
    stacks.importStack({ name: "other", compose: twoServices, env: [], versions: source.versions, current_version: 4 }),
    "invalid",
  )
  await stacks.up("web-copy")
  expect(compose.calls.slice(before).map((c) => c.args.join(" "))).toEqual(["up -d --remove-orphans"])
  expect((await stacks.read("web-copy")).versions.map((v) => v.version)).toEqual([1])
})

test("the guard reads compose's model on deploy, apply, rollback, import and up, before anything is written", async () => {
  const escape = 'services:\n  app:\n    image: x\n    volumes: ["/etc:/x"]\n'
  const refused = async (p: Promise<unknown>) => expect((await fails(p, "invalid")).code).toBe("host_path_refused")
  await refused(stacks.deploy("web", { compose: escape }))
  expect(existsSync(join(dataDir, "stacks/web"))).toBe(false)
  await refused(stacks.importStack({ name: "imp", compose: escape, env: [], versions: [], current_version: null }))
  expect(existsSync(join(dataDir, "stacks/imp"))).toBe(false)

  // A stack stored before the guard (or by hand) is refused on apply, rollback and up.
  await stacks.deploy("web", { compose: twoServices, env: secret })
  const dir = join(dataDir, "records/web")
  const v1 = JSON.parse(readOpened(join(dir, "versions/1.json"))!)
  writeFileSync(join(dir, "versions/1.json"), JSON.stringify({ ...v1, compose: escape }))
  writeFileSync(join(dir, "compose.yaml"), escape)
  const ups = compose.calls.length
  await refused(stacks.apply("web"))
  await refused(stacks.up("web"))
  await refused(stacks.rollback("web", 1))
  expect(compose.calls.length).toBe(ups)
  expect((await stacks.read("web")).versions.map((v) => v.version)).toEqual([1])
})

test("the model marks binds inside the stack folder as data", async () => {
  const model = await new Stacks(dataDir, compose, { engine, hostRoots: ["/srv"] }).model(
    "web",
    'services:\n  app:\n    image: x\n    volumes: ["./data:/data", "/srv/x:/x"]\n',
    [],
  )
  expect(model.binds.map((b) => [b.source, b.data])).toEqual([
    [join(dataDir, "stacks/web/data"), true],
    ["/srv/x", false],
  ])
})

test("remove takes the stack down (volumes only when asked) and deletes its files", async () => {
  await stacks.deploy("web", { compose: twoServices })
  await stacks.remove("web", { volumes: true })
  expect(compose.calls.at(-1)!.args).toEqual(["down", "--remove-orphans", "--volumes"])
  expect(existsSync(join(dataDir, "stacks/web"))).toBe(false)
  await fails(stacks.read("web"), "not_found")
})

test("a stack's files: written on deploy, restored with the previous version when up fails, a bind of one is not data", async () => {
  const withFiles =
    'services:\n  app:\n    image: x\n    volumes: ["./app.conf:/app.conf:ro", "./conf:/conf", "./data:/data"]\n'
  await stacks.deploy("web", { compose: withFiles, env: [], files: { "app.conf": "one\n", "conf/a.conf": "a\n" } })
  const dir = join(dataDir, "stacks/web")
  compose.failures.set("up", "boom")
  await fails(
    stacks.deploy("web", { compose: withFiles, env: [], files: { "app.conf": "two\n", "new.conf": "n\n" } }),
    "upstream",
  )
  compose.failures.clear()
  expect(readFileSync(join(dir, "app.conf"), "utf8")).toBe("one\n")
  expect(readFileSync(join(dir, "conf/a.conf"), "utf8")).toBe("a\n")
  expect(existsSync(join(dir, "new.conf"))).toBe(false)
  expect((await stacks.read("web")).files).toEqual({ "app.conf": "one\n", "conf/a.conf": "a\n" })
  const binds = async () =>
    (await stacks.model("web", withFiles, [])).binds.map((b) => [b.target, b.data, b.file ?? false])
  expect(await binds()).toEqual([
    ["/app.conf", false, true],
    ["/conf", false, true],
    ["/data", true, false],
  ])
  // Something else in the folder (written by the container) makes it data again.
  writeFileSync(join(dir, "conf/written-by-app"), "x")
  expect((await binds())[1]).toEqual(["/conf", true, false])
})

test("adopt writes version 1 with action adopt; a taken name is 409; a failed up removes the files and takes nothing down", async () => {
  const stack = await stacks.adopt("shop", { compose: twoServices, env: secret, files: {} })
  expect(stack.versions.map((v) => [v.version, v.action])).toEqual([[1, "adopt"]])
  expect(stack.state).toMatchObject({ current_version: 1, last_version: 1 })
  expect((await fails(stacks.adopt("shop", { compose: twoServices, env: secret, files: {} }), "conflict")).code).toBe(
    "stack_exists",
  )
  compose.failures.set("up", "boom")
  compose.calls = []
  await fails(stacks.adopt("other", { compose: twoServices, env: secret, files: {} }), "upstream")
  expect(compose.calls.map((c) => c.args[0])).toEqual(["up"])
  expect(existsSync(join(dataDir, "stacks/other"))).toBe(false)
})

test("a stack kept in the old layout moves to its records at start; links a container planted there are neither moved nor followed", async () => {
  const dir = join(dataDir, "stacks/old")
  const outside = mkdtempSync(join(tmpdir(), "hm-outside-"))
  writeFileSync(join(outside, "secret"), "the host's\n")
  mkdirSync(join(dir, "versions"), { recursive: true })
  mkdirSync(join(dir, "data"))
  writeFileSync(join(dir, "compose.yaml"), twoServices)
  writeFileSync(join(dir, "env.json"), JSON.stringify(secret))
  writeFileSync(join(dir, "nginx.conf"), "conf\n")
  writeFileSync(join(dir, "data/db"), "data\n")
  writeFileSync(
    join(dir, "versions/1.json"),
    JSON.stringify({ version: 1, time: "t", action: "deploy", compose: twoServices, env: secret, changes: {} }),
  )
  symlinkSync(join(outside, "secret"), join(dir, "versions/2.json"))
  symlinkSync(join(outside, "secret"), join(dir, "update-policy.json"))
  symlinkSync(join(outside, "secret"), join(dir, "extra.conf"))
  writeFileSync(
    join(dir, "state.json"),
    JSON.stringify({
      current_version: 1,
      env_pending: false,
      files: ["nginx.conf", "extra.conf"],
      last_version: 1,
      created: "t",
      updated: "t",
    }),
  )

  expect(stacks.migrate()).toEqual(["old"])
  const rec = join(dataDir, "records/old")
  expect(readdirSync(rec).sort()).toEqual(["compose.yaml", "env.json", "files.json", "state.json", "versions"])
  expect(readdirSync(join(rec, "versions"))).toEqual(["1.json"])
  expect(readdirSync(dir).sort()).toEqual(["data", "extra.conf", "nginx.conf", "update-policy.json"])
  const stack = await stacks.read("old")
  expect([stack.compose, stack.env, stack.files, stack.versions.map((v) => v.version)]).toEqual([
    twoServices,
    secret,
    { "nginx.conf": "conf\n" },
    [1],
  ])
  expect(stacks.secrets("old")).toEqual(["t0ken-one"])
  expect(stacks.migrate()).toEqual([])
  expect(readFileSync(join(outside, "secret"), "utf8")).toBe("the host's\n")
  rmSync(outside, { recursive: true, force: true })
})

test("a stack's secrets for redaction: its environment's and its current version's, which still run until an apply", async () => {
  await stacks.deploy("web", { compose: twoServices, env: secret })
  await stacks.setEnv("web", [{ key: "TOKEN", value: "t0ken-two", secret: true }])
  expect(stacks.secrets("web").sort()).toEqual(["t0ken-one", "t0ken-two"])
  await stacks.apply("web")
  expect(stacks.secrets("web")).toEqual(["t0ken-two"])
  expect(stacks.secrets("nope")).toEqual([])
  expect(stacks.secrets("../web")).toEqual([])
})

test("the stacks' names and states come from memory, and stay what a new store reads from disk through every kind of write", async () => {
  /** What a store started afresh on the same data directory reads: every stack's name and state. */
  const onDisk = async () => {
    const fresh = new Stacks(dataDir, compose, { engine })
    return Promise.all(fresh.names().map(async (n) => [n, await fresh.state(n)]))
  }
  const inMemory = async () => Promise.all(stacks.names().map(async (n) => [n, await stacks.state(n)]))
  const same = async () => expect(await inMemory()).toEqual(await onDisk())

  expect(stacks.names()).toEqual([])
  await stacks.deploy("web", { compose: twoServices, env: secret })
  await stacks.deploy("db", { compose: twoServices })
  await same()
  await stacks.setEnv("web", [{ key: "TOKEN", value: "t0ken-two", secret: true }])
  expect((await stacks.state("web")).env_pending).toBe(true)
  await same()
  await stacks.writeFile("web", "conf/site.conf", "a")
  expect(await stacks.state("web")).toMatchObject({ files_pending: true, files: ["conf/site.conf"] })
  await same()
  await stacks.apply("web")
  expect(await stacks.state("web")).toMatchObject({ env_pending: false, files_pending: false, current_version: 2 })
  await stacks.deleteFile("web", "conf/site.conf")
  await same()
  await stacks.rollback("web", 1)
  expect((await stacks.state("web")).current_version).toBe(1)
  await same()
  // A copy's or a restore's import, and an adoption.
  const source = await stacks.read("web")
  await stacks.importStack({ ...source, name: "copy", current_version: 2 })
  await stacks.adopt("found", { compose: twoServices, env: [], files: {} })
  expect(stacks.names()).toEqual(["copy", "db", "found", "web"])
  await same()
  // A first deploy that fails is undone: the name goes again.
  compose.failures.set("up", "no such image")
  await fails(stacks.deploy("broken", { compose: twoServices }), "upstream")
  compose.failures.delete("up")
  // A refused redeploy changes nothing.
  compose.failures.set("config", "refused")
  await fails(stacks.deploy("db", { compose: `${twoServices}  cache:\n    image: busybox\n` }), "invalid")
  compose.failures.delete("config")
  await same()
  await stacks.deploy("db", { compose: `${twoServices}  cache:\n    image: busybox\n` })
  expect((await stacks.state("db")).services).toEqual(["web", "db", "cache"])
  expect(await stacks.remove("copy")).toBe(true)
  expect(stacks.has("copy")).toBe(false)
  await fails(stacks.state("copy"), "not_found")
  expect(stacks.names()).toEqual(["db", "found", "web"])
  await same()
  // What a caller does with a state it was given changes none kept.
  const given = await stacks.state("web")
  given.current_version = 99
  expect(() => given.files!.push("x")).toThrow()
  expect((await stacks.state("web")).current_version).toBe(1)
})

test("the stacks' states are read from disk once, by the first question: the lists ask no stack's files after", async () => {
  for (const name of ["a", "b", "c"]) await stacks.deploy(name, { compose: twoServices })
  const started = new Stacks(dataDir, compose, { engine })
  const reads = watchFileReads([join(dataDir, "records"), join(dataDir, "stacks")])
  try {
    expect(started.names()).toEqual(["a", "b", "c"])
    expect(new Set(reads.paths().filter((p) => p.endsWith("state.json"))).size).toBe(3)
    reads.reset()
    for (let i = 0; i < 3; i++) {
      expect(started.names()).toEqual(["a", "b", "c"])
      for (const name of started.names()) expect((await started.state(name)).services).toEqual(["web", "db"])
      expect(started.has("b")).toBe(true)
      expect(started.has("nope")).toBe(false)
    }
    expect(reads.paths()).toEqual([])
  } finally {
    reads.stop()
  }
})
