import { expect, test } from "bun:test"
import type { Engine } from "#lib/engine/client.ts"
import { FakeEngine } from "../../support/fake-engine.ts"
import { prune } from "#lib/engine/prune.ts"

test("maps the engine's image prune answer: deleted ids removed, untagged references apart", async () => {
  const engine: Engine = new FakeEngine()
  engine.prune = async () => ({
    ImagesDeleted: [{ Untagged: "old:1" }, { Deleted: "sha256:aa" }, { Deleted: "sha256:bb" }],
    SpaceReclaimed: 4096,
  })
  expect(await prune(engine, "images")).toEqual({
    kind: "images",
    removed: ["sha256:aa", "sha256:bb"],
    untagged: ["old:1"],
    space_reclaimed: 4096,
  })
})

test("maps volume and network answers, null lists included", async () => {
  const engine: Engine = new FakeEngine()
  engine.prune = async (kind) =>
    kind === "volumes" ? { VolumesDeleted: ["v1"], SpaceReclaimed: 10 } : { NetworksDeleted: null }
  expect(await prune(engine, "volumes")).toEqual({
    kind: "volumes",
    removed: ["v1"],
    untagged: [],
    space_reclaimed: 10,
  })
  expect(await prune(engine, "networks")).toEqual({ kind: "networks", removed: [], untagged: [], space_reclaimed: 0 })
})
