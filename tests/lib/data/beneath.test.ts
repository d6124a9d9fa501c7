import { afterAll, beforeEach, describe, expect, test } from "bun:test"
import { execFileSync } from "node:child_process"
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import fc from "fast-check"
import {
  kindBeneath,
  makeFoldersBeneath,
  readBeneath,
  Refused,
  removeBeneath,
  writeBeneath,
} from "#lib/data/beneath.ts"
import { treeChecksum } from "../../support/checksum.ts"

const base = mkdtempSync(join(tmpdir(), "hm-beneath-"))
afterAll(() => rmSync(base, { recursive: true, force: true }))
const root = join(base, "root")
const host = join(base, "host")
const SECRET = "HOST-SECRET\n"

/** A host folder shaped like the root's tree, so that a followed link would find what it looks for. */
beforeEach(() => {
  rmSync(root, { recursive: true, force: true })
  rmSync(host, { recursive: true, force: true })
  mkdirSync(join(root, "a", "b"), { recursive: true })
  writeFileSync(join(root, "a", "b", "f"), "inside\n")
  mkdirSync(join(host, "a", "b"), { recursive: true })
  for (const f of ["f", "a/f", "a/b/f"]) writeFileSync(join(host, f), SECRET)
})

const text = (b: Buffer | undefined) => b?.toString("utf8")

describe("plain paths", () => {
  test("a write makes its folders, a read gives it back, a remove prunes the folders it leaves empty", () => {
    writeBeneath(root, "x/y/z/f", "one")
    expect(text(readBeneath(root, "x/y/z/f", 100))).toBe("one")
    expect(lstatSync(join(root, "x", "y")).isDirectory()).toBe(true)
    writeBeneath(root, "x/y/z/f", "two")
    expect(readFileSync(join(root, "x/y/z/f"), "utf8")).toBe("two")
    expect(readdirSync(join(root, "x/y/z"))).toEqual(["f"]) // no temp file left
    writeBeneath(root, "x/g", "kept")
    expect(removeBeneath(root, "x/y/z/f", true)).toBe(true)
    expect(existsSync(join(root, "x", "y"))).toBe(false)
    expect(readdirSync(join(root, "x"))).toEqual(["g"])
    expect(removeBeneath(root, "x/y/z/f", true)).toBe(false)
  })

  test("absent files and folders read as undefined; kinds are told apart", () => {
    expect(readBeneath(root, "a/missing", 100)).toBeUndefined()
    expect(readBeneath(root, "missing/deep/f", 100)).toBeUndefined()
    expect(readBeneath(join(base, "no-root"), "f", 100)).toBeUndefined()
    symlinkSync(host, join(root, "link"))
    execFileSync("mkfifo", [join(root, "fifo")])
    expect(["a/b/f", "a", "link", "fifo", "nothing", "no/thing"].map((p) => kindBeneath(root, p))).toEqual([
      "file",
      "folder",
      "link",
      "other",
      "absent",
      "absent",
    ])
  })

  test("makeFolders makes real folders and accepts those that exist", () => {
    makeFoldersBeneath(root, "a/b/c/d")
    makeFoldersBeneath(root, "a/b/c/d")
    expect(lstatSync(join(root, "a/b/c/d")).isDirectory()).toBe(true)
  })

  test("the root made on a write", () => {
    writeBeneath(join(base, "fresh", "root"), "f", "x")
    expect(readFileSync(join(base, "fresh", "root", "f"), "utf8")).toBe("x")
  })

  test("a read bounded by maxBytes", () => {
    writeBeneath(root, "big", "0123456789")
    expect(text(readBeneath(root, "big", 10))).toBe("0123456789")
    expect(() => readBeneath(root, "big", 9)).toThrow(Refused)
  })

  test("paths that are not plain relative names are refused", () => {
    for (const p of ["", ".", "..", "../host/f", "a/../../host/f", "/etc/passwd", "a//b", "a/./b", "a/\0"]) {
      expect(() => readBeneath(root, p, 100)).toThrow(Refused)
      expect(() => writeBeneath(root, p, "x")).toThrow(Refused)
      expect(() => removeBeneath(root, p)).toThrow(Refused)
      expect(() => makeFoldersBeneath(root, p)).toThrow(Refused)
    }
  })
})

describe("links and other things on the way", () => {
  /** Each way a link can stand in for a part of `a/b/f`: the folders, then the file itself. */
  const links: [string, string, string][] = [
    ["a", join(host, "a"), "a is a symlink"],
    ["a", "../host/a", "a is a symlink"],
    ["a/b", join(host, "a", "b"), "a/b is a symlink"],
    ["a/b", "../../host/a/b", "a/b is a symlink"],
    ["a/b", "..", "a/b is a symlink"], // a loop
    ["a/b", join(host, "missing"), "a/b is a symlink"], // dangling
  ]

  test.each(links)("%s -> %s: no operation goes through it", (at, target, message) => {
    rmSync(join(root, at), { recursive: true })
    symlinkSync(target, join(root, at))
    const before = treeChecksum(host)
    expect(() => readBeneath(root, "a/b/f", 100)).toThrow(message)
    expect(() => kindBeneath(root, "a/b/f")).toThrow(message)
    expect(() => writeBeneath(root, "a/b/f", "out")).toThrow(message)
    expect(() => writeBeneath(root, "a/b/new/f", "out")).toThrow(message)
    expect(() => makeFoldersBeneath(root, "a/b/new")).toThrow(message)
    expect(() => removeBeneath(root, "a/b/f", true)).toThrow(message)
    expect(treeChecksum(host)).toBe(before)
    expect(lstatSync(join(root, at)).isSymbolicLink()).toBe(true)
  })

  test("a link at the file itself: never read or written through; removing it removes the link", () => {
    rmSync(join(root, "a/b/f"))
    symlinkSync(join(host, "f"), join(root, "a/b/f"))
    const before = treeChecksum(host)
    expect(() => readBeneath(root, "a/b/f", 100)).toThrow("a/b/f is a symlink")
    expect(() => writeBeneath(root, "a/b/f", "out")).toThrow("a/b/f is a symlink")
    expect(() => makeFoldersBeneath(root, "a/b/f")).toThrow("a/b/f is a symlink")
    expect(removeBeneath(root, "a/b/f")).toBe(true)
    expect(existsSync(join(root, "a/b/f"))).toBe(false)
    expect(treeChecksum(host)).toBe(before)
  })

  test("a FIFO is neither opened for reading (which would wait for a writer) nor written over", () => {
    execFileSync("mkfifo", [join(root, "a", "fifo")])
    expect(() => readBeneath(root, "a/fifo", 100)).toThrow("a/fifo is not a regular file")
    expect(() => writeBeneath(root, "a/fifo", "x")).toThrow("a/fifo is not a regular file")
    expect(() => writeBeneath(root, "a/fifo/f", "x")).toThrow("a/fifo is not a folder")
    expect(kindBeneath(root, "a/fifo")).toBe("other")
  })

  test("a folder where a file is expected, a file where a folder is expected", () => {
    expect(() => readBeneath(root, "a/b", 100)).toThrow("a/b is not a regular file")
    expect(() => writeBeneath(root, "a/b", "x")).toThrow("a/b is not a regular file")
    expect(() => removeBeneath(root, "a/b")).toThrow("a/b is a folder")
    expect(() => readBeneath(root, "a/b/f/g", 100)).toThrow("a/b/f is not a folder")
    expect(() => writeBeneath(root, "a/b/f/g", "x")).toThrow("a/b/f is not a folder")
    expect(() => makeFoldersBeneath(root, "a/b/f")).toThrow("a/b/f is not a folder")
    expect(readFileSync(join(root, "a/b/f"), "utf8")).toBe("inside\n")
  })

  test("a root that is a link is refused", () => {
    const linked = join(base, "linked-root")
    rmSync(linked, { force: true })
    symlinkSync(host, linked)
    expect(() => readBeneath(linked, "f", 100)).toThrow(Refused)
    expect(() => writeBeneath(linked, "f", "x")).toThrow(Refused)
    expect(readFileSync(join(host, "f"), "utf8")).toBe(SECRET)
  })
})

describe("fuzzed trees and paths", () => {
  type Node = { file: string } | { link: string } | { dir: Tree }
  type Tree = Record<string, Node>
  const NAMES = ["a", "b", "f"]
  const fzRoot = join(base, "fz-root")
  const fzHost = join(base, "fz-host")
  // Links out to the host folder (absolute and relative), loops, inside, dangling.
  const targets = [
    fzHost,
    join(fzHost, "a"),
    join(fzHost, "f"),
    "../fz-host",
    "../../fz-host/a",
    "..",
    ".",
    "../..",
    "a",
    "missing",
  ]

  const { tree } = fc.letrec<{ tree: Tree; node: Node }>((tie) => ({
    tree: fc.dictionary(fc.constantFrom(...NAMES), tie("node"), { maxKeys: 3 }),
    node: fc.oneof(
      { maxDepth: 3 },
      fc.record({ file: fc.string({ maxLength: 8 }).map((s) => `in:${s}`) }),
      fc.record({ link: fc.constantFrom(...targets) }),
      fc.record({ dir: tie("tree") }),
    ),
  }))
  const path = fc.oneof(
    {
      weight: 9,
      arbitrary: fc.array(fc.constantFrom(...NAMES), { minLength: 1, maxLength: 4 }).map((s) => s.join("/")),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom("..", "a/..", "../fz-host/f", "a/../../fz-host/f", `${fzHost}/f`, "a//f", ""),
    },
  )
  const op = fc.record({
    op: fc.constantFrom("read", "kind", "write", "remove", "makeFolders"),
    path,
    content: fc.string({ maxLength: 8 }),
  })

  const build = (dir: string, t: Tree) => {
    for (const [name, node] of Object.entries(t)) {
      const p = join(dir, name)
      if ("file" in node) writeFileSync(p, node.file)
      else if ("link" in node) symlinkSync(node.link, p)
      else {
        mkdirSync(p)
        build(p, node.dir)
      }
    }
  }

  const plainRel = (p: string) => p.split("/").every((s) => s && s !== "." && s !== "..")
  /** The expected outcome, found with lstat on plain names (nothing else moves while it runs). */
  const look = (rel: string) => {
    const segments = rel.split("/")
    for (let i = 1; i < segments.length; i++) {
      const st = lstatSync(join(fzRoot, ...segments.slice(0, i)), { throwIfNoEntry: false })
      if (!st) return { way: "absent" as const }
      if (!st.isDirectory()) return { way: "refused" as const }
    }
    return { way: "plain" as const, st: lstatSync(join(fzRoot, rel), { throwIfNoEntry: false }) }
  }
  const kindOf = (st: ReturnType<typeof lstatSync>) =>
    !st ? "absent" : st.isFile() ? "file" : st.isDirectory() ? "folder" : st.isSymbolicLink() ? "link" : "other"

  function check({ op, path: rel, content }: { op: string; path: string; content: string }) {
    const seen = plainRel(rel) ? look(rel) : { way: "refused" as const }
    const refused = seen.way === "refused"
    const st = seen.way === "plain" ? seen.st : undefined
    switch (op) {
      case "read": {
        if (refused || (st && !st.isFile())) return expect(() => readBeneath(fzRoot, rel, 100)).toThrow(Refused)
        const got = text(readBeneath(fzRoot, rel, 100))
        return expect(got).toBe(st ? readFileSync(join(fzRoot, rel), "utf8") : undefined)
      }
      case "kind":
        if (refused) return expect(() => kindBeneath(fzRoot, rel)).toThrow(Refused)
        return expect(kindBeneath(fzRoot, rel)).toBe(kindOf(st))
      case "write":
        if (refused || (st && !st.isFile())) return expect(() => writeBeneath(fzRoot, rel, content)).toThrow(Refused)
        writeBeneath(fzRoot, rel, content)
        return expect(readFileSync(join(fzRoot, rel), "utf8")).toBe(content)
      case "remove":
        if (refused || st?.isDirectory()) return expect(() => removeBeneath(fzRoot, rel, true)).toThrow(Refused)
        expect(removeBeneath(fzRoot, rel, true)).toBe(!!st)
        return expect(lstatSync(join(fzRoot, rel), { throwIfNoEntry: false })).toBeUndefined()
      default: {
        const blocked =
          !plainRel(rel) ||
          rel.split("/").some((_, i, s) => {
            const at = lstatSync(join(fzRoot, ...s.slice(0, i + 1)), { throwIfNoEntry: false })
            return at && !at.isDirectory()
          })
        if (blocked) return expect(() => makeFoldersBeneath(fzRoot, rel)).toThrow(Refused)
        makeFoldersBeneath(fzRoot, rel)
        return expect(lstatSync(join(fzRoot, rel)).isDirectory()).toBe(true)
      }
    }
  }

  test("nothing outside the root is read, written or removed; inside, each operation does what lstat says it should", () => {
    fc.assert(
      fc.property(tree, fc.array(op, { maxLength: 12 }), (t, ops) => {
        for (const d of [fzRoot, fzHost]) rmSync(d, { recursive: true, force: true })
        mkdirSync(join(fzHost, "a", "b"), { recursive: true })
        for (const f of ["f", "a/f", "a/b/f"]) writeFileSync(join(fzHost, f), SECRET)
        mkdirSync(fzRoot)
        build(fzRoot, t)
        const before = treeChecksum(fzHost)
        for (const o of ops) check(o)
        expect(treeChecksum(fzHost)).toBe(before)
      }),
      { numRuns: 400 },
    )
  }, 60_000)
})

test("a folder swapped with a link to the host by another process as fast as it can: 2000 writes and 2000 reads, none outside", async () => {
  // On tmpfs where there is one: the swaps are not held up behind the writes' fsyncs.
  const race = mkdtempSync(join(existsSync("/dev/shm") ? "/dev/shm" : base, "hm-beneath-race-"))
  const raceRoot = join(race, "root")
  const raceHost = join(race, "host")
  mkdirSync(raceRoot)
  mkdirSync(join(raceHost, "g"), { recursive: true })
  writeFileSync(join(raceHost, "f"), SECRET)
  writeFileSync(join(raceHost, "g", "f"), SECRET)
  const before = treeChecksum(raceHost)
  const swapper = Bun.spawn(["bun", join(import.meta.dir, "../../support/swap-link.ts"), raceRoot, "d", raceHost], {
    stdout: "pipe",
  })
  const outcomes = { written: 0, refused: 0 }
  const reads: string[] = []
  let after = ""
  const REFUSED = Symbol("refused")
  const outcome = <T>(op: () => T): T | typeof REFUSED => {
    try {
      return op()
    } catch (err) {
      if (!(err instanceof Refused)) throw err
      outcomes.refused++
      return REFUSED
    }
  }
  try {
    const ready = await swapper.stdout.getReader().read()
    expect(new TextDecoder().decode(ready.value)).toBe("ready\n")
    // At least 2000 writes and 2000 reads, in rounds that let the swapper run, until both the folder and the link were met.
    for (let i = 0; i < 2000 || !outcomes.refused || !(outcomes.written + reads.length); i++) {
      if (i % 20 === 0) await Bun.sleep(1)
      if (i === 20_000) break
      outcome(() => {
        writeBeneath(raceRoot, i % 2 ? "d/f" : "d/g/f", `written ${i}\n`)
        outcomes.written++
      })
      const got = outcome(() => readBeneath(raceRoot, "d/f", 100))
      if (got && got !== REFUSED) reads.push(got.toString("utf8"))
    }
  } finally {
    swapper.kill()
    await swapper.exited
    after = treeChecksum(raceHost)
    rmSync(race, { recursive: true, force: true })
  }
  expect(after).toBe(before)
  expect(reads.filter((r) => r !== "inside\n" && !r.startsWith("written "))).toEqual([])
  expect(outcomes.refused).toBeGreaterThan(0)
  expect(reads.length + outcomes.written).toBeGreaterThan(0)
}, 60_000)
