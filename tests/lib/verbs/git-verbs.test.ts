// Git stacks' syncs with the fake engine and compose runner and a real git server. A sync asked while
// one runs is one more sync after it, the asks that pile up meanwhile joining it, and its answer is
// about a fetch made after the ask (a push is never answered with the previous commit's outcome);
// the status shows the sync under way. With a git server that ignores the partial fetch's filter: a
// commit whose fetch goes over the fetch cap is refused before git names it, and is recorded against
// the head the schedule asked for, so the schedule does not fetch it again while the branch stays
// there; a newer push is applied.
import { afterAll, afterEach, beforeAll, expect, test } from "bun:test"
import { DEFAULT_LIMITS } from "#lib/git/tree.ts"
import { stackDirs } from "#lib/stacks/name.ts"
import { GitVerbs } from "#lib/verbs/git-verbs.ts"
import { stackApp, twoServices } from "../../support/compose.ts"
import { watchFileReads } from "../../support/file-reads.ts"
import { startGitServer, type GitServer } from "../../support/git-server.ts"

const TOKEN = "tok-sched-7c2e"
let server: GitServer
let t: Awaited<ReturnType<typeof stackApp>>
let stop = new AbortController()

beforeAll(() => {
  server = startGitServer({ token: TOKEN, filter: false })
})
afterEach(() => {
  stop.abort()
  stop = new AbortController()
  t?.close()
})
afterAll(() => server.stop())

test("a sync asked while one deploys is one more sync after it, which fetches the newer push; asks meanwhile join it", async () => {
  t = await stackApp()
  const git = new GitVerbs({
    stacks: t.ctx.stacks,
    verbs: t.ctx.verbs,
    engine: t.engine,
    events: t.ctx.events,
    watch: 0,
  })
  const repo = await server.repo("queue")
  await repo.commit({ "compose.yaml": twoServices })
  await git.attach(
    "q",
    { url: repo.url, ref: "main", path: "compose.yaml", push: false, schedule: null, token: TOKEN },
    {},
  )
  const b = await repo.commit({ "compose.yaml": `${twoServices}  cache:\n    image: busybox\n` })
  let open!: () => void
  t.compose.gate = new Promise((resolve) => (open = resolve))
  const first = git.sync("q", { trigger: "webhook" })
  const ups = () => t.compose.calls.filter((c) => c.project === "q" && c.args[0] === "up").length
  for (const deadline = Date.now() + 30_000; ups() < 2; await Bun.sleep(20))
    if (Date.now() > deadline) throw new Error("the first sync never reached its deploy")
  const during = await git.status("q")

  const c = await repo.commit({ "compose.yaml": `${twoServices}  queue:\n    image: busybox\n` })
  const second = git.sync("q", { trigger: "webhook" })
  const third = git.sync("q", { trigger: "api" })
  const queued = (await git.status("q")).syncing
  // Pushed after the asks but before their sync starts: the fetch it makes finds it.
  const d = await repo.commit({ "compose.yaml": `${twoServices}  late:\n    image: busybox\n` })
  open()
  expect(await first).toMatchObject({ commit: b, verdict: "applied" })
  const [two, three] = await Promise.all([second, third])
  expect(two).toMatchObject({ commit: d, verdict: "applied", trigger: "api" })
  expect(three).toBe(two)
  expect(c).not.toBe(d)
  const syncs = t.ctx.events.history().filter((e) => e.type === "git" && e.action === "sync")
  expect(syncs.map((e) => e.message?.match(/at ([0-9a-f]{12})/)?.[1]).slice(1)).toEqual([
    b.slice(0, 12),
    d.slice(0, 12),
  ])
  expect(during.syncing).toMatchObject({ trigger: "webhook", step: "deploying", commit: b, queued: false })
  expect(queued).toMatchObject({ commit: b, queued: true })
  expect(await git.status("q")).toMatchObject({ deployed_commit: d, differ: false, syncing: null })
  expect(git.progress("q")).toBeNull()
}, 60_000)

test("a commit over the fetch cap is held by the schedule until the branch moves", async () => {
  t = await stackApp()
  const git = new GitVerbs({
    stacks: t.ctx.stacks,
    verbs: t.ctx.verbs,
    engine: t.engine,
    events: t.ctx.events,
    limits: { ...DEFAULT_LIMITS, fileBytes: 4096, fetchBytes: 32 * 1024 },
    watch: 0,
    tickMs: 50,
  })
  const repo = await server.repo("sched")
  const first = await repo.commit({ "compose.yaml": twoServices })
  expect(
    (
      await git.attach(
        "s",
        { url: repo.url, ref: "main", path: "compose.yaml", push: false, schedule: "1s", token: TOKEN },
        {},
      )
    ).source.deployed_commit,
  ).toBe(first)
  const noise = Buffer.from(crypto.getRandomValues(new Uint8Array(60_000))).toString("base64")
  const big = await repo.commit({ "noise.txt": noise })
  void git.schedules(stop.signal)

  const syncsOf = (commit: string) =>
    t.ctx.events
      .history()
      .filter((e) => e.type === "git" && e.action === "sync" && !!e.message?.includes(commit.slice(0, 12))).length
  const until = async (what: () => boolean | Promise<boolean>) => {
    for (const deadline = Date.now() + 30_000; !(await what()); await Bun.sleep(50))
      if (Date.now() > deadline) throw new Error("not reached")
  }
  await until(() => syncsOf(big) === 1)
  const held = await git.status("s")
  expect(held).toMatchObject({
    remote_head: big,
    schedule_held: big,
    deployed_commit: first,
    last_sync: {
      commit: big,
      verdict: "refused",
      error: expect.stringContaining("over the 32768-byte limit of a fetch"),
    },
  })
  // Three more asks of the head (each carries the token), and no fetch: the refusal stays the one.
  const asked = server.authorizations.length
  await until(() => server.authorizations.length >= asked + 3)
  expect(syncsOf(big)).toBe(1)
  expect((await git.status("s")).last_sync).toEqual(held.last_sync)

  const fixed = await repo.commit({ "noise.txt": null })
  await until(async () => (await git.status("s")).deployed_commit === fixed)
  expect((await git.status("s")).schedule_held).toBeNull()
}, 60_000)

test("the list's git markers are read once and follow every sync, detach, attach and deletion", async () => {
  t = await stackApp()
  const options = { stacks: t.ctx.stacks, verbs: t.ctx.verbs, engine: t.engine, events: t.ctx.events, watch: 0 }
  const git = new GitVerbs(options)
  const repo = await server.repo("markers")
  await repo.commit({ "compose.yaml": twoServices })
  const source = { url: repo.url, ref: "main", path: "compose.yaml", push: false, schedule: null, token: TOKEN }
  await git.attach("m", source, {})
  await t.ctx.verbs.deploy("plain", twoServices, {})
  /** Each stack's marker, and whether a GitVerbs started afresh reads the same from disk. */
  const markers = async () => {
    const now = { m: await git.marker("m"), plain: await git.marker("plain") }
    const fresh = new GitVerbs(options)
    expect(now).toEqual({ m: await fresh.marker("m"), plain: await fresh.marker("plain") })
    return now
  }
  expect(await markers()).toEqual({ m: { url: repo.url, ref: "main", last_verdict: "applied" }, plain: null })
  const reads = watchFileReads([stackDirs(t.dataDir).records])
  /** The markers asked three times once `change` is done, reading no file: the change keeps them. */
  const after = async (change: () => Promise<unknown>) => {
    await change()
    reads.reset()
    for (let i = 0; i < 3; i++) await git.marker("m"), await git.marker("plain")
    expect(reads.paths()).toEqual([])
    return markers()
  }
  try {
    await repo.commit({ "compose.yaml": "services:\n  web: [\n" })
    expect((await after(() => git.sync("m", { trigger: "api" }))).m?.last_verdict).toBe("refused")
    expect((await after(() => git.detach("m"))).m).toBeNull()
    await repo.commit({ "compose.yaml": twoServices })
    expect((await after(() => git.attach("m", source, { attach: true }))).m?.last_verdict).toBe("applied")
    expect(await after(() => t.ctx.verbs.remove("m"))).toEqual({ m: null, plain: null })
  } finally {
    reads.stop()
  }
}, 60_000)
