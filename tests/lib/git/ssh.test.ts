// A repository over ssh, against a real OpenSSH server on loopback (tests/support/sshd.ts): the
// private key written 0600 for the run only, the server's key checked against the known hosts given,
// or the first one seen handed back to be kept; a wrong host key or no key refused, the key's text in
// no message.
import { afterAll, beforeAll, expect, test } from "bun:test"
import { mkdtempSync, readdirSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { DomainError } from "#lib/errors/errors.ts"
import { sshCommand } from "#lib/git/run.ts"
import { fetchTree, remoteHead } from "#lib/git/tree.ts"
import { git } from "../../support/git-server.ts"
import { startSshd, type Sshd } from "../../support/sshd.ts"

let sshd: Sshd
let repo: string
let head: string

beforeAll(async () => {
  sshd = await startSshd()
  repo = mkdtempSync(join(tmpdir(), "hm-git-ssh-repo-"))
  await git(repo, "init", "-q", "-b", "main")
  await Bun.write(join(repo, "compose.yaml"), "services: {}\n")
  await git(repo, "add", "-A")
  await git(repo, "commit", "-q", "-m", "first")
  head = await git(repo, "rev-parse", "HEAD")
}, 60_000)

afterAll(() => {
  sshd?.stop()
  rmSync(repo, { recursive: true, force: true })
})

const refusal = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (err) => err as DomainError,
  )
/** The run folders of ssh commands left in the temporary folder. */
const runFolders = () =>
  readdirSync(tmpdir()).filter((f) => f.startsWith("hm-git-ssh-") && !f.startsWith("hm-git-ssh-repo-"))

test("ssh reads no configuration of the host's, offers the run's key only, and checks the host's key strictly once known", () => {
  const strict = sshCommand("/tmp/run", { key: true, strict: true })
  for (const part of [
    "-F /dev/null",
    "-o BatchMode=yes",
    "-o IdentitiesOnly=yes",
    "-o IdentityAgent=none",
    "-o GlobalKnownHostsFile=/dev/null",
    "-o UserKnownHostsFile='/tmp/run/known_hosts'",
    "-o StrictHostKeyChecking=yes",
    "-o IdentityFile='/tmp/run/key'",
    "-o PasswordAuthentication=no",
  ])
    expect(strict).toContain(part)
  const first = sshCommand("/tmp/run", { key: false, strict: false })
  expect(first).toContain("-o StrictHostKeyChecking=accept-new")
  expect(first).toContain("-o IdentityFile=none")
})

test("with the key and no known hosts, the first host key is accepted and handed back; with it, the fetch is checked strictly", async () => {
  const before = runFolders()
  const learned: string[] = []
  const url = sshd.url(repo)
  const fetched = await fetchTree({
    url,
    ref: "main",
    path: "compose.yaml",
    ssh: { key: sshd.clientKey, knownHosts: "", learned: (k) => void learned.push(k) },
  })
  expect(fetched).toMatchObject({ commit: head, compose: "services: {}\n" })
  expect(learned.length).toBe(1)
  expect(learned[0]).toContain(sshd.knownHosts.trim().split(" ").slice(1).join(" "))
  expect(await remoteHead({ url, ref: "main", ssh: { key: sshd.clientKey, knownHosts: learned[0]! } })).toBe(head)
  expect(
    (
      await fetchTree({
        url,
        ref: "main",
        path: "compose.yaml",
        ssh: { key: sshd.clientKey, knownHosts: sshd.knownHosts },
      })
    ).commit,
  ).toBe(head)
  expect(runFolders().filter((f) => !before.includes(f))).toEqual([])
}, 60_000)

test("another host key than the one known, or no key, is refused, and the key's text is in no message", async () => {
  const url = sshd.url(repo)
  const other = `[127.0.0.1]:${sshd.port} ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGTZn5SlrLxUD3kEVYQey8fsajqcaHOoLJrdPSr2lSDA\n`
  const wrongHost = await refusal(
    fetchTree({ url, ref: "main", path: "compose.yaml", ssh: { key: sshd.clientKey, knownHosts: other } }),
  )
  expect(wrongHost?.code).toBe("git_failed")
  expect(wrongHost?.message).toContain("Host key verification failed")
  const noKey = await refusal(
    fetchTree({ url, ref: "main", path: "compose.yaml", ssh: { knownHosts: sshd.knownHosts } }),
  )
  expect(noKey?.code).toBe("git_failed")
  expect(noKey?.message).toContain("Permission denied (publickey)")
  const body = sshd.clientKey.split("\n")[1]!
  for (const err of [wrongHost, noKey]) expect(err?.message).not.toContain(body)
}, 60_000)
