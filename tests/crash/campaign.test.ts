// The crash campaign: the real service, engine, compose CLI and restic, the service killed (SIGKILL)
// again and again in the middle of its operations, started again on the same data directory, and
// after each restart the invariant checked: the stack is as it was before the operation or as the
// operation leaves it, never half of each (its records, its version history, its containers running
// the current version's environment), no intent and no temp file left, its lock free, and no compose
// or restic run of the killed service still going.
//
// Operations: a first deploy, an apply, a rollback, a backup with the stop hook, a removal; each
// lane (a data directory and a stack of its own, lanes side by side on one engine, the service's
// compiled binary) cycles through them, making the stack ready for each without a crash (deployed,
// removed, given a second version, an edit to apply). Where each run is killed, per operation, in this order: after each of its durable steps in
// turn (`step@1`, `step@2`, ... until the operation ends before the step: lib/data/crash.ts), at its
// named crash points, while its compose or restic runs (killed as soon as the program shows), then at
// random moments. HM_CRASH_RUNS (default 120, per engine flavour) is the number of crash runs, HM_CRASH_LANES (default 4)
// how many run side by side.
import { afterAll, beforeAll, expect, test } from "bun:test"
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { TEMP } from "#lib/data/beneath.ts"
import { newSecretKey } from "#lib/data/sealed.ts"
import type { Engine } from "#lib/engine/client.ts"
import { STACK_LABEL } from "#lib/engine/containers.ts"
import { cleanup, engineHost, realEngine, TEST_LABEL, testImage } from "../support/engine.ts"
import { builtBinary } from "../support/build.ts"
import { startService, type Service } from "../support/service.ts"

const RUNS = Number(process.env.HM_CRASH_RUNS ?? 120)
const LANES = Number(process.env.HM_CRASH_LANES ?? 4)
const KEY = Buffer.from(newSecretKey().bytes).toString("hex")
/** The longest a random kill waits after the operation was asked (ms). */
const RANDOM_MS = 4000

type Op = "deploy" | "apply" | "rollback" | "backup" | "remove"
/** Each lane's operations in turn, each lane starting at another. */
const OPS: Op[] = ["deploy", "apply", "rollback", "backup", "remove"]
const NAMED: Record<Op, string[]> = {
  deploy: ["release.written", "release.up"],
  apply: ["release.written", "release.up"],
  rollback: ["release.written", "release.up"],
  backup: ["backup.stopped"],
  remove: ["remove.down"],
}
/** The program whose run a kill waits for: compose's for a stack's operations, restic's for a backup. */
const PROGRAM: Record<Op, "compose" | "restic"> = {
  deploy: "compose",
  apply: "compose",
  rollback: "compose",
  backup: "restic",
  remove: "compose",
}

/** What a stack is, as far as the invariant goes. */
type Shape =
  | { exists: false; containers: number }
  | {
      exists: true
      current: number | null
      versions: number[]
      pending: boolean
      containers: number
      state?: string
      v?: string
    }

let engine: Engine
let root: string
/** The service's compiled binary: it starts in a fraction of the time of the sources. */
let binary: string

const compose = `services:
  app:
    image: ${testImage()}
    command: ["sh", "-c", "trap 'exit 0' TERM; while true; do sleep 0.2; done"]
    environment:
      V: \${V}
    labels: { ${TEST_LABEL}: "1" }
`

/** Where each operation's kills go next: its steps in turn, its named points, its program's run, then random moments. */
class Plan {
  private step = new Map<Op, number>()
  private stepsDone = new Set<Op>()
  private named = new Map<Op, number>()
  private during = new Map<Op, number>()
  readonly counts = new Map<string, number>()

  next(op: Op): string {
    if (!this.stepsDone.has(op)) {
      const k = (this.step.get(op) ?? 0) + 1
      this.step.set(op, k)
      return `step@${k}`
    }
    const n = this.named.get(op) ?? 0
    if (n < NAMED[op].length) {
      this.named.set(op, n + 1)
      return NAMED[op][n]!
    }
    // While the program runs, as often as the random moments after.
    const d = (this.during.get(op) ?? 0) + 1
    this.during.set(op, d)
    return d % 2 ? PROGRAM[op] : `random@${Math.round(Math.random() * RANDOM_MS)}`
  }

  /** A `step@k` run the operation finished without reaching: it has fewer steps, the enumeration is over. */
  stepsEnded(op: Op): void {
    this.stepsDone.add(op)
  }

  count(op: Op, kind: string): void {
    const key = `${op} ${kind.replace(/@\d+$/, "")}`
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1)
  }
}

/** The processes whose command line names `needle` (a stack's compose project, a repository's folder). */
function programsOf(needle: string): string[] {
  const found: string[] = []
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid) || Number(pid) === process.pid) continue
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")
      const env = readFileSync(`/proc/${pid}/environ`, "utf8")
      if (cmd.includes(needle) || env.includes(`=${needle}\0`)) found.push(`${pid}: ${cmd.join(" ")}`)
    } catch {
      // gone meanwhile
    }
  }
  return found
}

/** Polls `read` until `holds` (or the tries are over); its last value. */
async function eventually<T>(read: () => Promise<T>, holds: (v: T) => boolean, tries = 240): Promise<T> {
  let value = await read()
  for (let i = 0; i < tries && !holds(value); i++) {
    await Bun.sleep(250)
    value = await read()
  }
  return value
}

/** Every temp file of an unfinished write under `dir`. */
function temps(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name)
    if (e.isDirectory()) return temps(path)
    return e.isFile() && TEMP.test(e.name) ? [path] : []
  })
}

class Lane {
  readonly name: string
  readonly dir: string
  readonly dataDir: string
  readonly repo: string
  svc: Service | undefined
  /** The value of V of each version of the stack. */
  private values = new Map<number, string>()
  private turn: number
  private serial = 0
  readonly log: string[] = []

  constructor(readonly index: number) {
    this.name = `hm-cc-${index}`
    this.dir = join(root, `lane-${index}`)
    this.dataDir = join(this.dir, "data")
    this.repo = join(this.dir, "repo")
    this.turn = index
    mkdirSync(this.dir)
  }

  async start(crashAt = ""): Promise<void> {
    this.svc = undefined
    this.svc = await startService(
      { DOCKER_HOST: engineHost(), SVC_SECRET_KEY: KEY, HM_CRASH_AT: crashAt },
      { dataDir: this.dataDir, cmd: [binary] },
    )
  }

  async call(method: string, path: string, body?: unknown) {
    const res = await fetch(`${this.svc!.url}/api${path}`, {
      method,
      ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
    })
    return { status: res.status, body: (await res.json().catch(() => null)) as any }
  }

  private containers() {
    return engine.listContainers({ all: true, filters: { label: [`${STACK_LABEL}=${this.name}`] } })
  }

  async shape(): Promise<Shape> {
    const got = await this.call("GET", `/stacks/${this.name}`)
    if (got.status === 404) return { exists: false, containers: (await this.containers()).length }
    expect(got.status).toBe(200)
    const versions = (await this.call("GET", `/stacks/${this.name}/versions`)).body.map(
      (v: { version: number }) => v.version,
    )
    const all = await this.containers()
    const c = all[0]
    // A container removed since the list (compose recreating it) is read again at the next poll.
    const env = c && (await engine.inspectContainer(c.Id).catch(() => undefined))?.Config.Env
    return {
      exists: true,
      current: got.body.current_version,
      versions,
      pending: got.body.env_pending,
      containers: all.length,
      state: c?.State,
      v: env?.find((e: string) => e.startsWith("V="))?.slice(2),
    }
  }

  /** Deploys the stack as a first deploy does (V = `value`), without a crash. */
  private deploy(value: string) {
    return this.call("POST", "/stacks", { name: this.name, content: compose, env: [{ key: "V", value }] })
  }

  /** The lane's next operation, made ready (the stack deployed, removed or given versions as it needs, an edit for an apply): its request and the shape it leaves. */
  async prepare(): Promise<{ op: Op; method: string; path: string; body?: unknown; after: Shape }> {
    const op = OPS[this.turn++ % OPS.length]!
    const value = () => `${this.index}-${++this.serial}`
    let shape = await this.shape()
    if (op === "deploy") {
      if (shape.exists) expect((await this.call("DELETE", `/stacks/${this.name}`)).status).toBe(200)
      const v = value()
      this.values = new Map([[1, v]])
      return {
        op,
        method: "POST",
        path: "/stacks",
        body: { name: this.name, content: compose, env: [{ key: "V", value: v }] },
        after: { exists: true, current: 1, versions: [1], pending: false, containers: 1, state: "running", v },
      }
    }
    if (!shape.exists) {
      const v = value()
      this.values = new Map([[1, v]])
      expect((await this.deploy(v)).status).toBe(201)
      shape = await this.shape()
    }
    if (!shape.exists) throw new Error(`${this.name} was not deployed`)
    const edit = async () => {
      const v = value()
      expect((await this.call("PUT", `/stacks/${this.name}/env`, [{ key: "V", value: v }])).status).toBe(200)
      this.values.set(Math.max(...(shape as { versions: number[] }).versions) + 1, v)
      return v
    }
    if (op === "rollback" && shape.versions.length < 2) {
      await edit()
      expect((await this.call("POST", `/stacks/${this.name}/apply`)).status).toBe(200)
      shape = (await this.shape()) as typeof shape
    }
    if (op === "apply") {
      const last = Math.max(...shape.versions)
      const v = await edit()
      return {
        op,
        method: "POST",
        path: `/stacks/${this.name}/apply`,
        after: { ...shape, current: last + 1, versions: [...shape.versions, last + 1], pending: false, v },
      }
    }
    if (op === "rollback") {
      const target = shape.versions.filter((n) => n !== shape.current).at(-1)!
      return {
        op,
        method: "POST",
        path: `/stacks/${this.name}/rollback/${target}`,
        after: { ...shape, current: target, pending: false, v: this.values.get(target) },
      }
    }
    if (op === "backup")
      return {
        op,
        method: "POST",
        path: `/backups/local/${this.name}/run`,
        body: { hooks: { stop: true } },
        after: shape,
      }
    return { op, method: "DELETE", path: `/stacks/${this.name}`, after: { exists: false, containers: 0 } }
  }

  /** One crash run; answers whether it killed the operation before it ended (false: a `step@k` past its steps). */
  async run(plan: Plan): Promise<boolean> {
    // The service the last run's recovery started (or a first one) makes the operation ready.
    if (!this.svc) await this.start()
    const next = await this.prepare()
    const before = await this.shape()
    const where = plan.next(next.op)
    await this.svc!.stop()
    await this.start(/^(step|release|backup|remove)/.test(where) ? where : "")
    const svc = this.svc!
    let answered: number | "no answer" | undefined
    const asked = this.call(next.method, next.path, next.body).then(
      (r) => (answered = r.status),
      () => (answered = "no answer"),
    )
    if (where.startsWith("random@")) {
      await Bun.sleep(Number(where.slice(7)))
      svc.proc.kill("SIGKILL")
    } else if (where === "compose" || where === "restic") {
      // Killed as soon as the program runs, a moment into its run (or once the operation ended without one).
      const needle = where === "compose" ? this.name : this.repo
      await eventually(
        async () => answered !== undefined || programsOf(needle).length > 0,
        (shown) => shown,
        400,
      )
      await Bun.sleep(Math.round(Math.random() * 300))
      svc.proc.kill("SIGKILL")
    }
    await asked
    const killedMidway = answered === "no answer"
    if (!killedMidway) {
      if (where.startsWith("step@")) plan.stepsEnded(next.op)
      svc.proc.kill("SIGKILL")
    }
    await svc.stop()
    plan.count(next.op, where)
    // No program the killed service ran goes on: its watchdog killed its group (lib/engine/spawn.ts).
    const left = await eventually(
      async () => [...programsOf(this.name), ...programsOf(this.repo)],
      (l) => l.length === 0,
      40,
    )
    expect(left).toEqual([])

    await this.start()
    await this.check(before, next, where).catch(async (err) => {
      // What the recovering service said, with what the lane did up to here.
      const svc = this.svc!
      svc.proc.kill("SIGKILL")
      const said = `${await new Response(svc.proc.stdout as ReadableStream).text()}${await new Response(svc.proc.stderr as ReadableStream).text()}`
      console.error(`${this.name}: ${next.op} killed at ${where}\n${this.log.join("\n")}\n${said}`)
      throw err
    })
    this.log.push(`${next.op} at ${where}: ${answered}`)
    return killedMidway
  }

  /** The invariant after the restart (see the file's comment). */
  private async check(before: Shape, next: { op: Op; after: Shape }, where: string): Promise<void> {
    const intents = await eventually(
      async () => (existsSync(join(this.dataDir, "intents")) ? readdirSync(join(this.dataDir, "intents")) : []),
      (l) => l.length === 0,
    )
    expect(intents).toEqual([])
    const same = (s: Shape) => Bun.deepEquals(s, before) || Bun.deepEquals(s, next.after)
    const shape = await eventually(() => this.shape(), same)
    if (!same(shape))
      console.error(`${this.name}: ${next.op} killed at ${where} is half`, { before, after: next.after, shape })
    expect([before, next.after]).toContainEqual(shape)
    expect(temps(this.dataDir)).toEqual([])
    expect(readdirSync(join(this.dataDir, "clear"))).toEqual([])
    // The lock is free: an operation under it answers (a version it does not have: 404).
    if (shape.exists) expect((await this.call("DELETE", `/stacks/${this.name}/versions/9999`)).status).toBe(404)
    this.log.push(Bun.deepEquals(shape, next.after) ? "  after" : "  before")
  }
}

let lanes: Lane[] = []

beforeAll(async () => {
  engine = realEngine()
  await cleanup(engine)
  binary = await builtBinary()
  root = mkdtempSync(join(tmpdir(), "hm-campaign-"))
  lanes = Array.from({ length: LANES }, (_, i) => new Lane(i))
  await Promise.all(
    lanes.map(async (lane) => {
      await lane.start()
      const repo = { name: "local", repository: lane.repo, password: "pw-campaign", init: true }
      expect((await lane.call("POST", "/backups/repos", repo)).status).toBe(201)
    }),
  )
}, 300_000)

afterAll(async () => {
  for (const lane of lanes) await lane.svc?.stop()
  await cleanup(engine)
  rmSync(root, { recursive: true, force: true })
}, 120_000)

test(`${RUNS} crash runs over ${LANES} lanes: after each restart every stack is as before or as after, nothing left`, async () => {
  const plan = new Plan()
  let runs = 0
  let midway = 0
  let failed = false
  await Promise.all(
    lanes.map(async (lane) => {
      // The first failure stops every lane (none goes on into the next test file).
      while (runs < RUNS && !failed) {
        runs++
        if (await lane.run(plan).catch((err) => ((failed = true), Promise.reject(err)))) midway++
      }
    }),
  )
  const counts = [...plan.counts].sort().map(([k, n]) => `${k}: ${n}`)
  console.log(`${runs} crash runs (${midway} killed midway):\n${counts.join("\n")}`)
  if (process.env.HM_CRASH_LOG) for (const lane of lanes) console.log(lane.log.join("\n"))
  expect(runs).toBeGreaterThanOrEqual(RUNS)
  // Every operation was killed at each of its kinds of points.
  for (const op of ["deploy", "apply", "rollback", "backup", "remove"] as Op[])
    expect(plan.counts.get(`${op} step`) ?? 0).toBeGreaterThan(0)
}, 3_600_000)
