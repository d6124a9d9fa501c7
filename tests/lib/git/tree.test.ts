// Reading a stack out of a repository served by git http-backend on loopback: the compose file and
// the files beside it at the ref's commit; a symlink, a submodule or a file over the cap refused
// before anything is read; hidden and binary files left out; a token sent as basic authentication;
// a 2 GiB file left out by the server (partial fetch) and a server that ignores the filter bounded by
// the fetch cap.
import { afterAll, beforeAll, expect, test } from "bun:test"
import { symlinkSync } from "node:fs"
import { join } from "node:path"
import { DomainError } from "#lib/errors/errors.ts"
import { fetchTree, refusedCommit, remoteHead } from "#lib/git/tree.ts"
import { startGitServer, type GitServer } from "../../support/git-server.ts"

let server: GitServer
const TOKEN = "tok-3f9a1c"

beforeAll(() => {
  server = startGitServer({ token: TOKEN })
})
afterAll(() => server.stop())

const refusal = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (err) => err as DomainError,
  )

test("the compose file and its folder's files at the ref's commit; hidden files skipped", async () => {
  const repo = await server.repo("plain")
  const commit = await repo.commit({
    "app/compose.yaml": "services: {}\n",
    "app/conf/site.conf": "x",
    "app/.hidden": "h",
    "other/x.txt": "no",
  })
  const fetched = await fetchTree({ url: repo.url, ref: "main", path: "app/compose.yaml", token: TOKEN })
  expect(fetched.commit).toBe(commit)
  expect(fetched.compose).toBe("services: {}\n")
  expect(fetched.files).toEqual({ "conf/site.conf": "x" })
  expect(fetched.skipped).toEqual(["app/.hidden (hidden)"])
  expect(await remoteHead({ url: repo.url, ref: "main", token: TOKEN })).toBe(commit)
  expect(
    server.authorizations.every((a) => a === `Basic ${Buffer.from(`x-access-token:${TOKEN}`).toString("base64")}`),
  ).toBe(true)
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
  const err = await refusal(
    repo.commit({}).then(() => fetchTree({ url: repo.url, ref: "main", path: "compose.yaml", token: TOKEN })),
  )
  expect(err?.kind).toBe("invalid")
  expect(err?.message).toContain("etc is a symbolic link")
})

test("a file over the cap is refused by its size, left out by the server", async () => {
  const repo = await server.repo("big")
  await repo.commit({ "compose.yaml": "services: {}\n", "big.txt": "a".repeat(5000) })
  const err = await refusal(
    fetchTree({
      url: repo.url,
      ref: "main",
      path: "compose.yaml",
      token: TOKEN,
      limits: { fileBytes: 4096, totalBytes: 1 << 20, files: 10, fetchBytes: 1 << 20 },
    }),
  )
  expect(err?.kind).toBe("too_large")
  expect(err?.message).toContain("big.txt is over the 4096-byte limit")
})

test("a submodule beside the compose file is refused, naming the commit", async () => {
  const repo = await server.repo("submodule")
  const inner = await repo.commit({ "compose.yaml": "services: {}\n" })
  await Bun.write(join(repo.dir, ".gitmodules"), '[submodule "vendor"]\n  path = vendor\n  url = file:///etc\n')
  await repo.git("add", ".gitmodules")
  await repo.git("update-index", "--add", "--cacheinfo", `160000,${inner},vendor`)
  await repo.git("commit", "-q", "-m", "submodule")
  await repo.git("push", "-q", "origin", "HEAD:main")
  const commit = await repo.git("rev-parse", "HEAD")
  const err = await refusal(fetchTree({ url: repo.url, ref: "main", path: "compose.yaml", token: TOKEN }))
  expect([err?.kind, err?.code]).toEqual(["invalid", "git_refused"])
  expect(err?.message).toContain("vendor is a submodule")
  expect(refusedCommit(err)).toBe(commit)
})

test("a 2 GiB file is left out by the server and refused by name; little crosses the wire", async () => {
  const repo = await server.repo("huge")
  await repo.commit({ "compose.yaml": "services: {}\n" })
  const commit = await repo.commitZeros("huge.bin", 2048)
  const before = server.sent()
  const err = await refusal(fetchTree({ url: repo.url, ref: "main", path: "compose.yaml", token: TOKEN }))
  expect([err?.kind, err?.code]).toEqual(["too_large", "git_refused"])
  expect(err?.message).toContain(
    "huge.bin is over the 1048576-byte limit of a stack's file (the server left it out of the fetch)",
  )
  expect(refusedCommit(err)).toBe(commit)
  expect(server.sent() - before).toBeLessThan(64 * 1024)
}, 60_000)

test("from a server that ignores the filter, a fetch over the fetch cap is stopped and refused", async () => {
  const plain = startGitServer({ filter: false })
  try {
    const repo = await plain.repo("nofilter")
    await repo.commit({
      "compose.yaml": "services: {}\n",
      "noise.txt": Buffer.from(crypto.getRandomValues(new Uint8Array(60_000))).toString("base64"),
    })
    const limits = { fileBytes: 4096, totalBytes: 1 << 20, files: 10, fetchBytes: 32 * 1024 }
    const err = await refusal(fetchTree({ url: repo.url, ref: "main", path: "compose.yaml", limits }))
    expect([err?.kind, err?.code]).toEqual(["too_large", "git_refused"])
    expect(err?.message).toContain("over the 32768-byte limit of a fetch")
    // Under the fetch cap, the file's own size refuses it.
    const sized = await refusal(
      fetchTree({ url: repo.url, ref: "main", path: "compose.yaml", limits: { ...limits, fetchBytes: 1 << 20 } }),
    )
    expect(sized?.message).toContain("noise.txt is 80000 bytes, over the 4096-byte limit")
  } finally {
    plain.stop()
  }
})

test("a wrong token, a missing compose file and a path with .. are refused without the token in the message", async () => {
  const repo = await server.repo("auth")
  await repo.commit({ "compose.yaml": "services: {}\n" })
  const wrong = await refusal(fetchTree({ url: repo.url, ref: "main", path: "compose.yaml", token: "wrong-token" }))
  expect(wrong?.code).toBe("git_failed")
  expect(wrong?.message).not.toContain("wrong-token")
  expect((await refusal(fetchTree({ url: repo.url, ref: "main", path: "nope.yaml", token: TOKEN })))?.code).toBe(
    "git_compose_missing",
  )
  expect((await refusal(fetchTree({ url: repo.url, ref: "main", path: "../compose.yaml", token: TOKEN })))?.code).toBe(
    "invalid_git_path",
  )
  expect(
    (await refusal(fetchTree({ url: "ext::sh -c touch% /tmp/pwned", ref: "main", path: "compose.yaml" })))?.code,
  ).toBe("invalid_git_url")
})
