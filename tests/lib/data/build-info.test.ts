import { expect, test } from "bun:test"
import { mkdtempSync, mkdirSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { gitSha } from "#lib/data/build-info.ts"

const sha = "0123456789abcdef0123456789abcdef01234567"

test("a branch ref, a packed ref and a detached HEAD are read", () => {
  const root = mkdtempSync(join(tmpdir(), "hm-git-"))
  mkdirSync(join(root, ".git/refs/heads"), { recursive: true })
  writeFileSync(join(root, ".git/HEAD"), "ref: refs/heads/main\n")
  writeFileSync(join(root, ".git/packed-refs"), `# pack-refs\n${sha} refs/heads/main\n`)
  expect(gitSha(root)).toBe(sha)
  writeFileSync(join(root, ".git/refs/heads/main"), `${sha.replace("0", "f")}\n`)
  expect(gitSha(root)).toBe(sha.replace("0", "f"))
  writeFileSync(join(root, ".git/HEAD"), `${sha}\n`)
  expect(gitSha(root)).toBe(sha)
})

test("a linked worktree follows .git to its git directory and common refs", () => {
  const main = mkdtempSync(join(tmpdir(), "hm-git-"))
  const tree = mkdtempSync(join(tmpdir(), "hm-tree-"))
  mkdirSync(join(main, ".git/worktrees/t"), { recursive: true })
  mkdirSync(join(main, ".git/refs/heads"), { recursive: true })
  writeFileSync(join(main, ".git/refs/heads/feature"), `${sha}\n`)
  writeFileSync(join(main, ".git/worktrees/t/HEAD"), "ref: refs/heads/feature\n")
  writeFileSync(join(main, ".git/worktrees/t/commondir"), "../..\n")
  writeFileSync(join(tree, ".git"), `gitdir: ${join(main, ".git/worktrees/t")}\n`)
  expect(gitSha(tree)).toBe(sha)
})

test("no git directory gives unknown", () => {
  expect(gitSha(mkdtempSync(join(tmpdir(), "hm-none-")))).toBe("unknown")
})
