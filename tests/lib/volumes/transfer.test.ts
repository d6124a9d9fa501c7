// The sweep at start: what a killed process left of its transfers (throwaway containers, a restore's
// or a probe's working volume, all under the transfer label) goes; a stack's volume, whatever its
// name, stays.
import { expect, test } from "bun:test"
import { removeLeftoverThrowaways, TRANSFER_LABEL } from "#lib/volumes/transfer.ts"
import { FakeEngine } from "../../support/fake-engine.ts"

test("the working volumes a killed restore or probe left are removed at start, a stack's volumes are not", async () => {
  const engine = new FakeEngine()
  await engine.createVolume("harbormaster-restore-0a1b2c3d4e5f6a7b", { [TRANSFER_LABEL]: "1" })
  await engine.createVolume("harbormaster-probe-0a1b2c3d4e5f6a7b8c9d0e1f", { [TRANSFER_LABEL]: "1" })
  await engine.createVolume("app_data", { "com.docker.compose.project": "app" })
  await engine.createVolume("harbormaster-restore-looks-alike")
  expect(await removeLeftoverThrowaways(engine)).toBe(2)
  expect([...engine.volumes.keys()].sort()).toEqual(["app_data", "harbormaster-restore-looks-alike"])
})
