// restic itself, on a local repository: a stream backed up through standard input and dumped back,
// a wrong password refused as such, and a source that fails midway leaving no snapshot.
import { afterAll, beforeAll, expect, test } from "bun:test"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { DomainError } from "#lib/errors/errors.ts"
import { jsonLines, restic, resticStream } from "#lib/backups/restic.ts"

let dir: string
const repo = () => ({ name: "t", repository: join(dir, "repo"), password: "pw-test" })
const deadline = { timeout: 60 }
const bytes = (n: number) => new Uint8Array(n).map((_, i) => (i * 7919) % 251)

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "hm-restic-"))
  await restic(repo(), ["init"], deadline)
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const snapshots = async () => JSON.parse(await restic(repo(), ["snapshots", "--json"], deadline)) as unknown[]

test("a stream goes in through standard input and comes back out of dump", async () => {
  const data = bytes(3 << 20)
  const out = await restic(
    repo(),
    ["backup", "--json", "--quiet", "--stdin", "--stdin-filename", "data.bin"],
    deadline,
    { stdin: new Blob([data]).stream() },
  )
  const [summary] = jsonLines<{ snapshot_id: string; total_bytes_processed: number }>(out, "summary")
  expect(summary!.total_bytes_processed).toBe(data.length)
  const dump = resticStream(repo(), ["dump", summary!.snapshot_id, "/data.bin"], deadline)
  const back = new Uint8Array(await new Response(dump.stdout).arrayBuffer())
  await dump.done
  expect(Buffer.compare(back, data)).toBe(0)
})

test("a wrong password is 409 repository_password", async () => {
  const err = await restic({ ...repo(), password: "wrong" }, ["cat", "config"], deadline).catch((e) => e)
  expect(err).toBeInstanceOf(DomainError)
  expect([err.kind, err.code]).toEqual(["conflict", "repository_password"])
  expect(err.message).not.toContain("wrong")
})

test("a source that fails midway fails the backup and leaves no snapshot", async () => {
  const before = (await snapshots()).length
  let sent = 0
  const failing = new ReadableStream<Uint8Array>({
    pull(c) {
      if (sent++ < 4) c.enqueue(bytes(1 << 20))
      else c.error(new Error("the engine went away"))
    },
  })
  const err = await restic(repo(), ["backup", "--quiet", "--stdin", "--stdin-filename", "cut.bin"], deadline, {
    stdin: failing,
  }).catch((e) => e)
  expect(err.message).toBe("the engine went away")
  expect((await snapshots()).length).toBe(before)
})

test("restic's words in an error carry no credential of the repository's URL", async () => {
  const token = "ghp_TokenAsUser123"
  const err = await restic({ ...repo(), repository: `rest:http://${token}@127.0.0.1:1/` }, ["init"], deadline).catch(
    (e) => e,
  )
  expect(err.code).toBe("restic_failed")
  expect(err.message).toContain("rest:http://***@127.0.0.1:1/")
  expect(err.message).not.toContain(token)
})
