import { expect, test } from "bun:test"
import { FakeEngine } from "../../support/fake-engine.ts"
import { containerLogs } from "#lib/engine/logs.ts"

test("lines carry the compose service, the container's name, the stream and the engine's timestamp", async () => {
  const engine = new FakeEngine()
  const c = engine.addContainer({
    name: "shop_db_1",
    labels: { "com.docker.compose.service": "db" },
    logs: [{ stream: "stderr", ts: "2026-01-01T00:00:00.000000001Z", line: "ready" }],
  })
  const lines = await Array.fromAsync(await containerLogs(engine, "shop_db_1", { follow: false, tail: "all" }))
  expect(lines).toEqual([
    { service: "db", container: "shop_db_1", stream: "stderr", ts: "2026-01-01T00:00:00.000000001Z", line: "ready" },
  ])
  expect(engine.calls.find((x) => x.op === "logs")!.args[0]).toBe(c.id)
})

test("an unknown container fails before any stream exists", async () => {
  await expect(containerLogs(new FakeEngine(), "nope", { follow: true, tail: 10 })).rejects.toMatchObject({
    kind: "not_found",
  })
})
