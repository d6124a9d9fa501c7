import { expect, test } from "bun:test"
import { dashboard } from "#lib/engine/dashboard.ts"
import { DiskUsageCache } from "#lib/engine/disk-usage.ts"
import type { Engine } from "#lib/engine/client.ts"
import { FakeEngine } from "../../support/fake-engine.ts"
import { Reused } from "#lib/engine/reused.ts"

test("disk use adds up the engine's counts, skipping the -1 of sizes it did not count", async () => {
  const engine: Engine = new FakeEngine()
  engine.df = async () => ({
    LayersSize: 1000,
    Containers: [{ SizeRw: 10 }, { SizeRw: 5 }, {}],
    Volumes: [{ UsageData: { Size: 300 } }, { UsageData: { Size: -1 } }],
    BuildCache: [{ Size: 7 }],
  })
  const d = await dashboard(engine, {
    disk: new DiskUsageCache(engine),
    engineVersion: new Reused(() => engine.version()),
  })
  expect(d.disk).toEqual({ images: 1000, containers: 15, volumes: 300, build_cache: 7, total: 1322 })
})

test("states the engine reports beyond the usual ones are counted too", async () => {
  const engine = new FakeEngine()
  engine.addContainer({ name: "a", state: "running" })
  engine.listContainers = async () => [
    {
      Id: "x",
      Names: ["/x"],
      Image: "i",
      ImageID: "",
      Created: 0,
      State: "removing",
      Status: "Removal In Progress",
      Ports: [],
      Labels: {},
    },
  ]
  const d = await dashboard(engine, {
    disk: new DiskUsageCache(engine),
    engineVersion: new Reused(() => engine.version()),
  })
  expect(d.container_states).toEqual({
    total: 1,
    created: 0,
    running: 0,
    paused: 0,
    restarting: 0,
    exited: 0,
    dead: 0,
    removing: 1,
  })
})
