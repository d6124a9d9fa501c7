// A write restic retries for minutes (with backoff) on a repository whose disk is full: the first
// "no space left on device" it prints stops it, and the answer is 507 repository_full. The stand-in
// prints restic's retry line as restic 0.14 does and would then wait as restic's backoff does.
import { afterAll, expect, test } from "bun:test"
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { restic } from "#lib/backups/restic.ts"

const dir = mkdtempSync(join(tmpdir(), "hm-restic-full-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

test("restic retrying a write on a full disk is stopped at its first 'no space left' and is no_space repository_full", async () => {
  const pidFile = join(dir, "pid")
  writeFileSync(
    join(dir, "restic"),
    `#!/bin/sh\necho $$ > ${pidFile}\necho "Save(<index/3f2a>) returned error, retrying after 720.25ms: write ${dir}/repo/index/3f2a: no space left on device" >&2\nexec sleep 600\n`,
  )
  chmodSync(join(dir, "restic"), 0o755)
  const err = await restic(
    { name: "t", repository: join(dir, "repo"), password: "pw" },
    ["backup", "--stdin"],
    { timeout: 600 },
    { env: { PATH: `${dir}:${process.env.PATH}` } },
  ).catch((e) => e)
  expect([err.kind, err.code]).toEqual(["no_space", "repository_full"])
  const pid = Number(await Bun.file(pidFile).text())
  expect(() => process.kill(pid, 0)).toThrow()
}, 30_000)
