// Git stacks against the real engine and compose, through the real service, with a git smart-HTTP
// server on loopback that wants a token: a stack created from a repository, a push and a signed
// webhook (applied as a version recording the commit), a wrong signature (refused, nothing changes),
// an image that exits (rolled back), a symlink to /etc, a bind of ../../, a submodule and a file over
// the cap (each refused, the stack as it was), a 2 GiB file (left on the server, refused), a new stack
// deployed from git with POST /api/stacks (a taken name refused unless attached), a stopped stack
// (stays stopped), a schedule that does not fetch a refused commit again until the branch moves, and
// the token in no answer, event, export or log line.
import { afterAll, beforeAll, expect, test } from "bun:test"
import { createHmac } from "node:crypto"
import { symlinkSync } from "node:fs"
import { join } from "node:path"
import type { Engine } from "#lib/engine/client.ts"
import { STACK_LABEL } from "#lib/engine/containers.ts"
import { cleanup, engineHost, realEngine, TEST_LABEL, testImage } from "../support/engine.ts"
import { startGitServer, type GitServer, type WorkTree } from "../support/git-server.ts"
import { startService, type Service } from "../support/service.ts"

const NAME = "hm-git"
const TOKEN = "git-tok-5e1d8b7a"
const SLOW = 120_000

let engine: Engine
let server: GitServer
let repo: WorkTree
let svc: Service
let secret: string
/** Every answer's text, looked through for the token at the end. */
const answers: string[] = []

const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
  const res = await fetch(`${svc.url}/api${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  })
  const text = await res.text()
  answers.push(text)
  return { status: res.status, body: text ? JSON.parse(text) : null }
}

const service = (command: string, extra = "") => `services:
  app:
    image: ${testImage()}
    command: ["sh", "-c", "${command}"]
    labels: { ${TEST_LABEL}: "1" }
${extra}`
const RUNS = "trap 'exit 0' TERM; while true; do sleep 0.2; done"

const signed = (payload: string) => ({
  "content-type": "application/json",
  "X-GitHub-Event": "push",
  "X-Hub-Signature-256": `sha256=${createHmac("sha256", secret).update(payload).digest("hex")}`,
})

/** The stack's git status once its last sync found `commit`. */
async function syncedTo(commit: string) {
  const deadline = Date.now() + 60_000
  for (;;) {
    const status = (await call("GET", `/stacks/${NAME}/git`)).body
    if (status.last_sync?.commit === commit) return status
    if (Date.now() > deadline) throw new Error(`no sync reached ${commit}: ${JSON.stringify(status)}`)
    await Bun.sleep(200)
  }
}

const versions = async () =>
  (await call("GET", `/stacks/${NAME}/versions`)).body as { version: number; commit?: string }[]
const sync = (watch = 0) => call("POST", `/stacks/${NAME}/git/sync`, { watch })

beforeAll(async () => {
  engine = realEngine()
  await cleanup(engine)
  server = startGitServer({ token: TOKEN })
  repo = await server.repo("app")
  svc = await startService({ DOCKER_HOST: engineHost(), SVC_GIT_MAX_FILE_BYTES: "4096", SVC_UPDATE_WATCH: "3" })
}, SLOW)

afterAll(async () => {
  for (const name of [NAME, "hm-git-plain", "hm-git-new"]) await call("DELETE", `/stacks/${name}`).catch(() => {})
  await svc.stop()
  const logs = `${await new Response(svc.proc.stdout as ReadableStream).text()}${await new Response(svc.proc.stderr as ReadableStream).text()}`
  expect(logs).not.toContain(TOKEN)
  server.stop()
  await cleanup(engine)
}, SLOW)

test(
  "a stack deployed from a repository (POST /api/stacks with git) records the commit; a pushed change with a signed webhook becomes a new version",
  async () => {
    const first = await repo.commit({
      "deploy/compose.yaml": service(RUNS, '    volumes: ["./conf/app.conf:/app.conf:ro"]\n'),
      "deploy/conf/app.conf": "one",
    })
    const created = await call("POST", "/stacks", {
      name: NAME,
      git: { url: repo.url, ref: "main", path: "deploy/compose.yaml", token: TOKEN },
      env: [{ key: "MODE", value: "git" }],
    })
    expect(created.status).toBe(201)
    expect(created.body).toMatchObject({
      name: NAME,
      status: "running",
      current_version: 1,
      git: { created: true, source: { has_token: true, deployed_commit: first } },
    })
    secret = created.body.git.webhook_secret
    expect(secret).toMatch(/^[0-9a-f]{48}$/)
    expect((await versions()).map((v) => v.commit)).toEqual([first])

    const second = await repo.commit({ "deploy/conf/app.conf": "two" })
    const status = await call("GET", `/stacks/${NAME}/git`)
    expect(status.body).toMatchObject({ deployed_commit: first, remote_head: second, differ: true })

    const payload = JSON.stringify({ ref: "refs/heads/main", after: second })
    const hook = await call("POST", `/stacks/${NAME}/git/webhook`, payload, signed(payload))
    expect(hook).toEqual({ status: 202, body: { accepted: true } })
    expect((await syncedTo(second)).last_sync).toMatchObject({ verdict: "applied", error: null })
    expect((await versions()).map((v) => v.commit)).toEqual([first, second])
    const [c] = await engine.listContainers({ filters: { label: [`${STACK_LABEL}=${NAME}`] } })
    expect(c?.State).toBe("running")
    expect((await call("GET", `/stacks/${NAME}/files/conf/app.conf`)).status).toBe(200)
  },
  SLOW,
)

test(
  "a stack that runs here without git is not replaced by a repository unless asked (409 stack_exists)",
  async () => {
    const plain = await call("POST", "/stacks", { name: "hm-git-plain", content: service(RUNS) })
    expect(plain.status).toBe(201)
    const taken = await call("PUT", "/stacks/hm-git-plain/git", {
      url: repo.url,
      path: "deploy/compose.yaml",
      token: TOKEN,
    })
    expect([taken.status, taken.body.error.code]).toEqual([409, "stack_exists"])
    expect((await call("GET", "/stacks/hm-git-plain/versions")).body.length).toBe(1)
    const attached = await call("PUT", "/stacks/hm-git-plain/git", {
      url: repo.url,
      path: "deploy/compose.yaml",
      token: TOKEN,
      attach: true,
    })
    expect(attached.body).toMatchObject({ created: false, sync: { verdict: "applied" } })
    expect((await call("DELETE", "/stacks/hm-git-plain")).status).toBeLessThan(300)
  },
  SLOW,
)

test(
  "POST /api/stacks with git on a name taken is 409 unless attached; a 2 GiB file is refused without being fetched",
  async () => {
    const head = await repo.git("rev-parse", "HEAD")
    const taken = await call("POST", "/stacks", {
      name: NAME,
      git: { url: repo.url, path: "deploy/compose.yaml", token: TOKEN },
    })
    expect([taken.status, taken.body.error.code]).toEqual([409, "stack_exists"])
    const attached = await call("POST", "/stacks", {
      name: NAME,
      git: { url: repo.url, path: "deploy/compose.yaml" },
      attach: true,
    })
    expect(attached.status).toBe(200)
    expect(attached.body.git).toMatchObject({
      created: false,
      source: { has_token: true },
      sync: { verdict: "unchanged", commit: head },
    })

    const huge = await server.repo("huge")
    await huge.commit({ "deploy/compose.yaml": service(RUNS) })
    await huge.commitZeros("deploy/huge.bin", 2048)
    const sent = server.sent()
    const refused = await call("POST", "/stacks", {
      name: "hm-git-new",
      git: { url: huge.url, path: "deploy/compose.yaml", token: TOKEN },
    })
    expect([refused.status, refused.body.error.code]).toEqual([400, "git_sync_failed"])
    expect(refused.body.error.message).toContain(
      "deploy/huge.bin is over the 4096-byte limit of a stack's file (the server left it out of the fetch)",
    )
    expect(server.sent() - sent).toBeLessThan(64 * 1024)
    expect((await call("GET", "/stacks/hm-git-new")).status).toBe(404)
  },
  SLOW,
)

test(
  "a webhook unsigned or signed with another secret is refused and nothing runs",
  async () => {
    const before = await versions()
    const head = await repo.commit({ "deploy/conf/app.conf": "three" })
    const payload = JSON.stringify({ ref: "refs/heads/main", after: head })
    const wrong = createHmac("sha256", "not-the-secret").update(payload).digest("hex")
    expect(
      (
        await call("POST", `/stacks/${NAME}/git/webhook`, payload, {
          "content-type": "application/json",
          "X-Hub-Signature-256": `sha256=${wrong}`,
        })
      ).status,
    ).toBe(401)
    expect(
      (
        await call("POST", `/stacks/${NAME}/git/webhook`, payload, {
          "content-type": "application/json",
          "X-Gitea-Signature": wrong,
        })
      ).status,
    ).toBe(401)
    expect(
      (await call("POST", `/stacks/${NAME}/git/webhook`, payload, { "content-type": "application/json" })).status,
    ).toBe(401)
    // From another site's page too: the route has its own proof, the answer is the same.
    expect(
      (
        await call("POST", `/stacks/${NAME}/git/webhook`, payload, {
          "content-type": "application/json",
          Origin: "https://evil.example",
        })
      ).status,
    ).toBe(401)
    const events = (await call("GET", "/events/history")).body as { type: string; action: string; message: string }[]
    expect(events.filter((e) => e.type === "git" && e.action === "webhook_refused").length).toBe(4)
    expect(await versions()).toEqual(before)
    // A Gitea-signed call for the same commit applies it.
    const gitea = createHmac("sha256", secret).update(payload).digest("hex")
    expect(
      (
        await call("POST", `/stacks/${NAME}/git/webhook`, payload, {
          "content-type": "application/json",
          "X-Gitea-Signature": gitea,
        })
      ).status,
    ).toBe(202)
    expect((await syncedTo(head)).last_sync.verdict).toBe("applied")
  },
  SLOW,
)

test(
  "an edit here of a stack deployed from git (push off) is 409 git_managed naming the repository, and nothing changes",
  async () => {
    const before = await versions()
    const put = await call("PUT", `/stacks/${NAME}/files/conf/app.conf`, { content: "edited here" })
    expect(put.status).toBe(409)
    expect(put.body.error).toMatchObject({ code: "git_managed", message: expect.stringContaining(repo.url) })
    const deploy = await call("POST", "/stacks", { name: NAME, content: service(RUNS) })
    expect(deploy.body.error?.code).toBe("git_managed")
    expect((await call("DELETE", `/stacks/${NAME}/files/conf/app.conf`)).status).toBe(409)
    expect(await versions()).toEqual(before)
    expect((await call("GET", `/stacks/${NAME}/files/conf/app.conf`)).body.content).toBe("three")
  },
  SLOW,
)

test(
  "a commit whose image exits is rolled back, the version stays recorded with its commit",
  async () => {
    const good = (await call("GET", `/stacks/${NAME}/git`)).body.deployed_commit
    const current =
      (await call("GET", `/stacks/${NAME}`)).body.state?.current_version ?? (await versions()).at(-1)!.version
    const bad = await repo.commit({
      "deploy/compose.yaml": service("exit 3", '    volumes: ["./conf/app.conf:/app.conf:ro"]\n'),
    })
    const outcome = await sync(3)
    expect(outcome.body).toMatchObject({ commit: bad, verdict: "rolled_back" })
    expect((await versions()).at(-1)?.commit).toBe(bad)
    const status = (await call("GET", `/stacks/${NAME}/git`)).body
    expect(status.deployed_commit).toBe(good)
    expect(outcome.body.version).toBe(current)
  },
  SLOW,
)

test(
  "a symlink to /etc, a bind of ../../, a submodule and a file over the cap are each refused, the stack as it was",
  async () => {
    const before = await versions()
    const state = (await call("GET", `/stacks/${NAME}/git`)).body.deployed_commit
    symlinkSync("/etc", join(repo.dir, "deploy/etc"))
    const linked = await repo.commit({ "deploy/compose.yaml": service(RUNS, '    volumes: ["./etc:/host-etc:ro"]\n') })
    expect((await sync()).body).toMatchObject({
      commit: linked,
      verdict: "refused",
      error: expect.stringContaining("deploy/etc is a symbolic link"),
    })
    await repo.git("rm", "-q", "deploy/etc")
    await repo.commit({ "deploy/compose.yaml": service(RUNS, '    volumes: ["../../:/up:ro"]\n') })
    const bind = await sync()
    expect(bind.body).toMatchObject({ verdict: "refused", error: expect.stringContaining("outside") })
    const inner = await repo.git("rev-parse", "HEAD")
    await Bun.write(join(repo.dir, ".gitmodules"), '[submodule "sub"]\n  path = deploy/sub\n  url = /etc\n')
    await repo.git("add", ".gitmodules")
    await repo.git("update-index", "--add", "--cacheinfo", `160000,${inner},deploy/sub`)
    await repo.git("commit", "-q", "-m", "submodule")
    await repo.git("push", "-q", "origin", "HEAD:main")
    expect((await sync()).body).toMatchObject({
      verdict: "refused",
      error: expect.stringContaining("deploy/sub is a submodule"),
    })
    await repo.git("rm", "-q", "--cached", "deploy/sub", ".gitmodules")
    await repo.commit({ "deploy/compose.yaml": service(RUNS), "deploy/big.txt": "x".repeat(5000) })
    expect((await sync()).body).toMatchObject({
      verdict: "refused",
      error: expect.stringContaining("deploy/big.txt is over the 4096-byte limit"),
    })
    expect(await versions()).toEqual(before)
    expect((await call("GET", `/stacks/${NAME}/git`)).body.deployed_commit).toBe(state)
    expect(linked).not.toBe(state)
  },
  SLOW,
)

test(
  "a stack a person stopped stays stopped; the token is in no answer, event or export",
  async () => {
    await repo.commit({ "deploy/big.txt": null })
    expect((await call("POST", `/stacks/${NAME}/git/sync`, {})).body.verdict).toBe("applied")
    for (const c of await engine.listContainers({ filters: { label: [`${STACK_LABEL}=${NAME}`] } }))
      await engine.containerAction(c.Id, "stop")
    const before = await versions()
    const head = await repo.commit({ "deploy/conf/app.conf": "four" })
    expect((await sync()).body).toMatchObject({ commit: head, verdict: "stopped" })
    expect(await versions()).toEqual(before)
    const running = await engine.listContainers({ filters: { label: [`${STACK_LABEL}=${NAME}`] } })
    expect(running).toEqual([])

    await call("GET", `/stacks/${NAME}/export`)
    await call("GET", "/events/history")
    expect(answers.join("\n")).not.toContain(TOKEN)
    expect(server.authorizations.length).toBeGreaterThan(0)
  },
  SLOW,
)

test(
  "with push on, an edit is committed and pushed as Harbormaster; when the branch moved meanwhile it is 409 git_push_refused and nothing changes",
  async () => {
    const attached = await call("PUT", `/stacks/${NAME}/git`, {
      url: repo.url,
      ref: "main",
      path: "deploy/compose.yaml",
      push: true,
      watch: 0,
    })
    expect(attached.status).toBe(200)
    expect(attached.body.webhook_secret).toBeUndefined()
    // The stack is stopped and the branch is ahead of what it runs: the edit would overwrite a push.
    const ahead = await repo.git("ls-remote", "origin", "refs/heads/main")
    const refused = await call("PUT", `/stacks/${NAME}/files/conf/app.conf`, { content: "edited here" })
    expect(refused.status).toBe(409)
    expect(refused.body.error.code).toBe("git_push_refused")
    expect(await repo.git("ls-remote", "origin", "refs/heads/main")).toBe(ahead)
    expect((await call("GET", `/stacks/${NAME}/files/conf/app.conf`)).body.content).toBe("three")

    for (const c of await engine.listContainers({ all: true, filters: { label: [`${STACK_LABEL}=${NAME}`] } }))
      await engine.containerAction(c.Id, "start")
    const synced = await sync()
    expect(synced.body.verdict).toBe("applied")
    const edited = await call("PUT", `/stacks/${NAME}/files/conf/app.conf`, { content: "edited here" })
    expect(edited.status).toBeLessThan(300)
    await repo.git("pull", "-q", "origin", "main")
    expect(await Bun.file(join(repo.dir, "deploy/conf/app.conf")).text()).toBe("edited here")
    expect(await repo.git("log", "-1", "--format=%an <%ae>|%s")).toMatch(
      /^Harbormaster <harbormaster@[0-9a-f-]{36}>\|Write conf\/app.conf of hm-git \(PUT \/api\/stacks\/hm-git\/files\/conf\/app.conf\) \(sign-in off\)$/,
    )
    const status = (await call("GET", `/stacks/${NAME}/git`)).body
    expect(status).toMatchObject({ deployed_commit: await repo.git("rev-parse", "HEAD"), differ: false })
    expect(answers.join("\n")).not.toContain(TOKEN)
  },
  SLOW,
)

test(
  "a stack with a schedule syncs by itself",
  async () => {
    const attached = await call("PUT", `/stacks/${NAME}/git`, {
      url: repo.url,
      ref: "main",
      path: "deploy/compose.yaml",
      push: true,
      schedule: "1s",
    })
    expect(attached.body.source.schedule).toBe("1s")
    const head = await repo.commit({ "deploy/conf/app.conf": "scheduled" })
    expect((await syncedTo(head)).last_sync).toMatchObject({ verdict: "applied" })
    expect((await versions()).at(-1)?.commit).toBe(head)
  },
  SLOW,
)

test(
  "a commit the schedule found refused is not fetched again while the branch stays there; a newer push is applied",
  async () => {
    symlinkSync("/etc", join(repo.dir, "deploy/etc"))
    const bad = await repo.commit({})
    const refused = (await syncedTo(bad)).last_sync
    expect(refused).toMatchObject({
      verdict: "refused",
      error: expect.stringContaining("deploy/etc is a symbolic link"),
    })
    // The schedule keeps asking the remote's head (each ask carries the token), and fetches nothing.
    const asked = server.authorizations.length
    const sent = server.sent()
    for (const deadline = Date.now() + 30_000; server.authorizations.length < asked + 3; await Bun.sleep(200))
      if (Date.now() > deadline) throw new Error("the schedule asked nothing")
    const status = (await call("GET", `/stacks/${NAME}/git`)).body
    expect(status).toMatchObject({ schedule_held: bad, remote_head: bad, last_sync: refused })
    const syncs = (
      (await call("GET", "/events/history")).body as { type: string; action: string; message: string }[]
    ).filter((e) => e.type === "git" && e.action === "sync" && e.message.includes(bad.slice(0, 12)))
    expect(syncs.length).toBe(1)
    expect(server.sent() - sent).toBeLessThan(16 * 1024)

    await repo.git("rm", "-q", "deploy/etc")
    const fixed = await repo.commit({ "deploy/conf/app.conf": "fixed" })
    expect((await syncedTo(fixed)).last_sync.verdict).toBe("applied")
    expect((await call("GET", `/stacks/${NAME}/git`)).body.schedule_held).toBeNull()
  },
  SLOW,
)

test(
  "a push during a watched sync is synced after it: the sync asked meanwhile answers the newer commit, and the status shows the one under way",
  async () => {
    const plain = await call("PUT", `/stacks/${NAME}/git`, { url: repo.url, ref: "main", path: "deploy/compose.yaml" })
    expect(plain.body.source.schedule).toBeNull()
    const b = await repo.commit({ "deploy/conf/app.conf": "b" })
    const watched = call("POST", `/stacks/${NAME}/git/sync`, { watch: 4 })
    // B's version is recorded before its watch: the sync is deploying it.
    for (const deadline = Date.now() + 60_000; (await versions()).at(-1)?.commit !== b; await Bun.sleep(100))
      if (Date.now() > deadline) throw new Error("B was never deployed")
    const during = (await call("GET", `/stacks/${NAME}/git`)).body
    const c = await repo.commit({ "deploy/conf/app.conf": "c" })
    const payload = JSON.stringify({ ref: "refs/heads/main", after: c })
    expect((await call("POST", `/stacks/${NAME}/git/webhook`, payload, signed(payload))).status).toBe(202)
    const now = await sync()
    expect((await watched).body).toMatchObject({ commit: b, verdict: "applied" })
    expect(now.body).toMatchObject({ commit: c, verdict: "applied" })
    expect((await versions()).map((v) => v.commit).slice(-2)).toEqual([b, c])
    expect((await call("GET", `/stacks/${NAME}/files/conf/app.conf`)).body.content).toBe("c")
    expect(during).toMatchObject({
      deployed_commit: expect.not.stringMatching(b),
      syncing: { step: "deploying", commit: b },
    })
    expect((await call("GET", `/stacks/${NAME}/git`)).body).toMatchObject({
      deployed_commit: c,
      differ: false,
      syncing: null,
    })
  },
  SLOW,
)
