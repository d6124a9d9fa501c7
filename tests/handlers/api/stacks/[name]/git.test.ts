import { afterAll, beforeAll, expect, test } from "bun:test"
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { testApp, type TestApp } from "../../../../support/app.ts"
import { stackApp, twoServices } from "../../../../support/compose.ts"
import { git } from "../../../../support/git-server.ts"
import { startSshd } from "../../../../support/sshd.ts"
import { readOpened } from "#lib/data/sealed.ts"
import { writeSealedJson } from "#lib/data/datadir.ts"

let t: TestApp
beforeAll(async () => {
  t = await testApp()
})
afterAll(() => t.close())

const json = async (res: Response) => ({ status: res.status, body: (await res.json()) as any })

test("a stack without a git source: status and sync are 404 no_git_source, detaching too", async () => {
  for (const [method, path] of [
    ["GET", "/api/stacks/plain/git"],
    ["POST", "/api/stacks/plain/git/sync"],
    ["DELETE", "/api/stacks/plain/git"],
  ] as const) {
    const res = await json(await t.call(method, path, method === "POST" ? {} : undefined))
    expect([path, res.status, res.body.error.code]).toEqual([path, 404, "no_git_source"])
  }
})

test("the webhook answers a foreign Host and Origin with its own 401, not the browser guard's 403, and says so on the bus", async () => {
  const res = await json(
    await t.call("POST", "/api/stacks/plain/git/webhook", '{"ref":"refs/heads/main"}', {
      host: "harbor.example.com",
      origin: "https://git.example.com",
      "x-hub-signature-256": "sha256=00",
    }),
  )
  expect(res).toEqual({ status: 401, body: { error: { code: "bad_signature", message: expect.any(String) } } })
  expect(
    t.ctx.events
      .history()
      .filter((e) => e.type === "git")
      .map((e) => e.action),
  ).toEqual(["webhook_refused"])
  // Any other route from that Host is still refused by the guard.
  expect((await t.call("POST", "/api/stacks/plain/git/sync", {}, { host: "harbor.example.com" })).status).toBe(403)
})

test("a repository URL with a credential in it, or of a protocol not allowed, is 400 before anything runs", async () => {
  for (const url of ["https://user:pw@git.example.com/a.git", "ext::sh -c id", "git://git.example.com/a.git"]) {
    const res = await json(await t.call("PUT", "/api/stacks/fromgit/git", { url }))
    expect([url, res.status, res.body.error.code]).toEqual([url, 400, "invalid_git_url"])
  }
  expect(
    (
      await json(
        await t.call("PUT", "/api/stacks/fromgit/git", {
          url: "https://git.example.com/a.git",
          path: "../compose.yaml",
        }),
      )
    ).body.error.code,
  ).toBe("invalid_git_path")
  expect(t.ctx.stacks.has("fromgit")).toBe(false)
})

test("a schedule that is neither an interval nor a cron expression is 400", async () => {
  const res = await json(
    await t.call("PUT", "/api/stacks/fromgit/git", { url: "https://git.example.com/a.git", schedule: "every tuesday" }),
  )
  expect([res.status, res.body.error.code]).toEqual([400, "invalid_policy"])
})

test("over ssh: the key is kept 0600 and never answered, the server's first key is kept and then checked", async () => {
  const sshd = await startSshd()
  const repo = mkdtempSync(join(tmpdir(), "hm-git-ssh-repo-"))
  const app = await stackApp()
  try {
    await git(repo, "init", "-q", "-b", "main")
    await Bun.write(join(repo, "compose.yaml"), twoServices)
    await git(repo, "add", "-A")
    await git(repo, "commit", "-q", "-m", "first")
    const keyLine = sshd.clientKey.split("\n")[1]!
    const put = await app.call("PUT", "/api/stacks/overssh/git", { url: sshd.url(repo), ssh_key: sshd.clientKey })
    const putText = await put.text()
    expect(put.status).toBe(201)
    expect(JSON.parse(putText).source).toMatchObject({
      has_ssh_key: true,
      has_token: false,
      deployed_commit: await git(repo, "rev-parse", "HEAD"),
    })
    const status = await app.call("GET", "/api/stacks/overssh/git")
    const statusText = await status.text()
    expect(JSON.parse(statusText).known_hosts).toContain(sshd.knownHosts.trim().split(" ").slice(1).join(" "))
    for (const text of [putText, statusText, JSON.stringify(app.ctx.events.history())])
      expect(text).not.toContain(keyLine)
    const file = join(app.ctx.stacks.records("overssh"), "git.json")
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(readFileSync(file, "utf8")).not.toContain(keyLine)
    expect(readOpened(file)).toContain(keyLine)
    expect(readdirSync(app.ctx.stacks.dir("overssh"), { recursive: true }).join("\n")).not.toContain("git.json")

    // Another key at the same address now is refused: the kept one is checked strictly.
    const other = await startSshd()
    try {
      const moved = {
        ...JSON.parse(readOpened(file)!),
        url: sshd.url(repo).replace(String(sshd.port), String(other.port)),
        known_hosts: JSON.parse(statusText).known_hosts.replace(String(sshd.port), String(other.port)),
      }
      writeSealedJson(file, moved)
      const sync = await (await app.call("POST", "/api/stacks/overssh/git/sync", {})).json()
      expect(sync).toMatchObject({ verdict: "failed", error: expect.stringContaining("Host key verification failed") })
    } finally {
      other.stop()
    }
  } finally {
    app.close()
    sshd.stop()
    rmSync(repo, { recursive: true, force: true })
  }
}, 60_000)
