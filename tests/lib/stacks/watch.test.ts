import { expect, test } from "bun:test"
import type { Engine } from "#lib/engine/client.ts"
import { watchStack } from "#lib/stacks/watch.ts"

/** An engine that answers list and inspect from a script of readings that the test changes as time goes. */
function scripted(containers: Record<string, any>[]): Engine {
  return {
    listContainers: async () =>
      containers.map((c) => ({
        Id: c.id,
        Labels: { "com.docker.compose.project": "s", "com.docker.compose.service": c.service },
        State: c.status,
        Created: 0,
      })),
    inspectContainer: async (id: string) => {
      const c = containers.find((x) => x.id === id)!
      return {
        Id: id,
        Created: new Date().toISOString(),
        RestartCount: c.restarts ?? 0,
        State: {
          Status: c.status,
          ExitCode: c.exit ?? 0,
          ...(c.health ? { Health: { Status: c.health, Log: [{ Output: c.output ?? "" }] } } : {}),
        },
      }
    },
  } as unknown as Engine
}

test("all healthy: success before the window ends", async () => {
  const engine = scripted([{ id: "a", service: "web", status: "running", health: "healthy" }])
  const r = await watchStack(engine, "s", { window: 30, pollMs: 10 })
  expect(r).toMatchObject({ ok: true, early: true })
  expect(r.elapsed_ms).toBeLessThan(30_000)
})

test("unhealthy fails at once with the last healthcheck output, secrets hidden", async () => {
  const engine = scripted([
    { id: "a", service: "db", status: "running" },
    { id: "b", service: "web", status: "running", health: "unhealthy", output: "cannot log in with hunter2\n" },
  ])
  const r = await watchStack(engine, "s", { window: 30, pollMs: 10, secrets: ["hunter2"] })
  expect(r).toMatchObject({ ok: false, service: "web", reason: "service web: unhealthy: cannot log in with ***" })
})

test("a multi-line secret in the healthcheck output is hidden before the output is folded into one line and cut", async () => {
  const key = "line-one-of-the-key\ntwo"
  const folded = [{ id: "a", service: "web", status: "running", health: "unhealthy", output: `key:\n${key}\n` }]
  const r = await watchStack(scripted(folded), "s", { window: 30, pollMs: 10, secrets: [key] })
  expect(r).toMatchObject({ reason: "service web: unhealthy: key: ***" })
  expect(JSON.stringify(r)).not.toContain("line-one")
  const cut = [{ id: "a", service: "web", status: "running", health: "unhealthy", output: `${"x".repeat(295)}hunter2` }]
  expect(await watchStack(scripted(cut), "s", { window: 30, pollMs: 10, secrets: ["hunter2"] })).toMatchObject({
    reason: `service web: unhealthy: ${"x".repeat(295)}***`,
  })
})

test("restarts past the threshold fail; exited fails with its code", async () => {
  const loop = [{ id: "a", service: "api", status: "restarting", restarts: 3, exit: 1 }]
  expect(await watchStack(scripted(loop), "s", { window: 30, pollMs: 10 })).toMatchObject({
    ok: false,
    reason: "service api: exited with code 1, 3 restarts",
  })
  const twice = [{ id: "a", service: "api", status: "running", restarts: 2, exit: 1 }]
  expect(await watchStack(scripted(twice), "s", { window: 0.1, pollMs: 10 })).toMatchObject({ ok: true })
  const exited = [{ id: "a", service: "api", status: "exited", exit: 137 }]
  expect(await watchStack(scripted(exited), "s", { window: 30, pollMs: 10 })).toMatchObject({
    ok: false,
    reason: "service api: exited with code 137, 0 restarts",
  })
})

test("without a healthcheck the whole window is watched; a healthcheck still starting at the end fails", async () => {
  const plain = [{ id: "a", service: "web", status: "running" }]
  expect(await watchStack(scripted(plain), "s", { window: 0.2, pollMs: 20 })).toMatchObject({ ok: true, early: false })
  const starting = [{ id: "a", service: "web", status: "running", health: "starting", output: "" }]
  expect(await watchStack(scripted(starting), "s", { window: 0.2, pollMs: 20 })).toMatchObject({
    ok: false,
    reason: "service web: not healthy after 0.2 s (starting): (no output)",
  })
})

test("a container that turns bad during the window fails then; ignored services are not watched", async () => {
  const list: Record<string, any>[] = [
    { id: "a", service: "web", status: "running" },
    { id: "j", service: "job", status: "exited", exit: 0 },
  ]
  setTimeout(() => Object.assign(list[0]!, { status: "exited", exit: 2 }), 100)
  const r = await watchStack(scripted(list), "s", { window: 30, pollMs: 10, ignore: ["job"] })
  expect(r).toMatchObject({ ok: false, service: "web", reason: "service web: exited with code 2, 0 restarts" })
  expect(r.elapsed_ms).toBeLessThan(30_000)
})

test("a restarted container reads exit code 0 again on newer engines: the code comes from its last die event", async () => {
  const engine = scripted([{ id: "a", service: "api", status: "running", restarts: 3, exit: 0 }])
  const asked: any[] = []
  engine.events = async function* (o: any) {
    asked.push(o)
    yield { Type: "container", Action: "die", Actor: { ID: "a", Attributes: { exitCode: "1" } }, time: 0, timeNano: 0 }
  } as Engine["events"]
  expect(await watchStack(engine, "s", { window: 30, pollMs: 10 })).toMatchObject({
    ok: false,
    reason: "service api: exited with code 1, 3 restarts",
  })
  expect(asked[0]).toMatchObject({ filters: { container: ["a"], event: ["die"] } })
  expect(asked[0].until).toBeDefined()
})
