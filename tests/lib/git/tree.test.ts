// Reading a stack out of a repository served by git http-backend on loopback: the compose file and
// the files beside it at the ref's commit; a symlink, a submodule or a file over the cap refused
// before anything is read; hidden and binary files left out; a token sent as basic authentication.
import { afterAll, beforeAll, expect, test } from "bun:test"
import { symlinkSync } from "node:fs"
import { join } from "node:path"
import { HttpError } from "#lib/http/http-error.ts"
import { fetchTree, remoteHead } from "#lib/git/tree.ts"
import { startGitServer, type GitServer } from "../../support/git-server.ts"

let server: GitServer
const TOKEN = "tok-3f9a1c"

beforeAll(() => {
  server = startGitServer({ token: TOKEN })
})
afterAll(() => server.stop())

const refusal = (p: Promise<unknown>) => p.then(() => undefined, (err) => err as HttpError)

test("the compose file and its folder's files at the ref's commit; hidden files skipped", async () => {
  const repo = await server.repo("plain")
  const commit = await repo.commit({ "app/compose.yaml": "services: {}\n", "app/conf/site.conf": "x", "app/.hidden": "h", "other/x.txt": "no" })
  const fetched = await fetchTree({ url: repo.url, ref: "main", path: "app/compose.yaml", token: TOKEN })
  expect(fetched.commit).toBe(commit)
  expect(fetched.compose).toBe("services: {}\n")
  expect(fetched.files).toEqual({ "conf/site.conf": "x" })
  expect(fetched.skipped).toEqual(["app/.hidden (hidden)"])
  expect(await remoteHead({ url: repo.url, ref: "main", token: TOKEN })).toBe(commit)
  expect(server.authorizations.every((a) => a === `Basic ${Buffer.from(`x-access-token:${TOKEN}`).toString("base64")}`)).toBe(true)
})

test("binary content is left out and listed", async () => {
  const repo = await server.repo("binary")
  await repo.commit({ "compose.yaml": "services: {}\n" })
  await Bun.write(join(repo.dir, "blob.bin"), new Uint8Array([0xff, 0x00, 0xfe]))
  await repo.git("add", "-A")
  await repo.git("commit", "-q", "-m", "bin")
  await repo.git("push", "-q", "origin", "HEAD:main")
  const fetched = await fetchTree({ url: repo.url, ref: "main", path: "compose.yaml", token: TOKEN })
  expect(fetched.files).toEqual({})
  expect(fetched.skipped).toEqual(["blob.bin (binary)"])
})

test("a symlink beside the compose file is refused", async () => {
  const repo = await server.repo("link")
  await repo.commit({ "compose.yaml": "services: {}\n" })
  symlinkSync("/etc", join(repo.dir, "etc"))
  const err = await refusal(repo.commit({}).then(() => fetchTree({ url: repo.url, ref: "main", path: "compose.yaml", token: TOKEN })))
  expect(err?.status).toBe(400)
  expect(err?.message).toContain("etc is a symbolic link")
})

test("a file over the cap is refused by its size, before it is read", async () => {
  const repo = await server.repo("big")
  await repo.commit({ "compose.yaml": "services: {}\n", "big.txt": "a".repeat(5000) })
  const err = await refusal(fetchTree({ url: repo.url, ref: "main", path: "compose.yaml", token: TOKEN, limits: { fileBytes: 4096, totalBytes: 1 << 20, files: 10 } }))
  expect(err?.status).toBe(413)
  expect(err?.message).toContain("big.txt is 5000 bytes")
})

test("a wrong token, a missing compose file and a path with .. are refused without the token in the message", async () => {
  const repo = await server.repo("auth")
  await repo.commit({ "compose.yaml": "services: {}\n" })
  const wrong = await refusal(fetchTree({ url: repo.url, ref: "main", path: "compose.yaml", token: "wrong-token" }))
  expect(wrong?.code).toBe("git_failed")
  expect(wrong?.message).not.toContain("wrong-token")
  expect((await refusal(fetchTree({ url: repo.url, ref: "main", path: "nope.yaml", token: TOKEN })))?.code).toBe("git_compose_missing")
  expect((await refusal(fetchTree({ url: repo.url, ref: "main", path: "../compose.yaml", token: TOKEN })))?.code).toBe("invalid_git_path")
  expect((await refusal(fetchTree({ url: "ext::sh -c touch% /tmp/pwned", ref: "main", path: "compose.yaml" })))?.code).toBe("invalid_git_url")
})
