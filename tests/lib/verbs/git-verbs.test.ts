// Git stacks' schedule with a git server that ignores the partial fetch's filter (the fake engine and
// compose runner): a commit whose fetch goes over the fetch cap is refused before git names it, and is
// recorded against the head the schedule asked for, so the schedule does not fetch it again while the
// branch stays there; a newer push is applied.
import { afterAll, afterEach, beforeAll, expect, test } from "bun:test"
import { DEFAULT_LIMITS } from "#lib/git/tree.ts"
import { GitVerbs } from "#lib/verbs/git-verbs.ts"
import { stackApp, twoServices } from "../../support/compose.ts"
import { startGitServer, type GitServer } from "../../support/git-server.ts"

const TOKEN = "tok-sched-7c2e"
let server: GitServer
let t: Awaited<ReturnType<typeof stackApp>>
const stop = new AbortController()

beforeAll(() => {
  server = startGitServer({ token: TOKEN, filter: false })
})
afterEach(() => {
  stop.abort()
  t?.close()
})
afterAll(() => server.stop())

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
