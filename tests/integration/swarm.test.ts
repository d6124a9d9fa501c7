// The swarm's engine calls against the test swarm of scripts/swarm.sh (a manager and two workers),
// on both flavours.
import { afterAll, describe, expect, test } from "bun:test"
import { dockerEngine } from "#lib/engine/client.ts"
import { realEngine } from "../support/engine.ts"
import { serviceSpec, swarmManager, swarmWorkerHosts, until } from "../support/swarm.ts"

const manager = swarmManager()
const workers = swarmWorkerHosts().map((h) => dockerEngine(h))
const running = async (service: string) => (await manager.listTasks({ service: [service], "desired-state": ["running"] })).filter((t) => t.Status.State === "running")
const status = async (id: string) => (await manager.listServices({ id: [id] }))[0]?.ServiceStatus

afterAll(async () => {
  for (const s of await manager.listServices({ label: ["hm.test"] })) await manager.removeService(s.ID).catch(() => {})
})

describe("swarm engine calls", () => {
  test("the manager lists three ready nodes, each with its own hostname", async () => {
    const nodes = await manager.listNodes()
    expect(nodes.map((n) => `${n.Description.Hostname} ${n.Status.State} ${n.Spec.Role}`).sort()).toEqual(["manager ready manager", "worker1 ready worker", "worker2 ready worker"])
    expect(nodes.find((n) => n.Spec.Role === "manager")?.ManagerStatus?.Leader).toBe(true)
  })

  test("swarmInspect on the manager; not a manager (a worker, an engine in no swarm) is 409 not_swarm_manager", async () => {
    const swarm = await manager.swarmInspect()
    expect(swarm.ID).toBeTruthy()
    expect(swarm.JoinTokens.Worker).toStartWith("SWMTKN-")
    for (const engine of [workers[0]!, realEngine("a")]) {
      const err = await engine.swarmInspect().then(() => undefined, (e) => e)
      expect(err).toMatchObject({ status: 409, code: "not_swarm_manager" })
      expect(await engine.listNodes().catch((e) => e.code)).toBe("not_swarm_manager")
    }
  })

  test("inspectNode and updateNode: labels and availability, with the version read", async () => {
    const [node] = await manager.listNodes({ name: ["worker1"] })
    const before = await manager.inspectNode(node!.ID)
    await manager.updateNode(node!.ID, before.Version.Index, { ...before.Spec, Labels: { zone: "a" }, Availability: "pause" })
    const after = await manager.inspectNode(node!.ID)
    expect(after.Spec).toMatchObject({ Labels: { zone: "a" }, Availability: "pause" })
    // The version read before the change is stale now.
    expect(await manager.updateNode(node!.ID, before.Version.Index, before.Spec).catch((e) => e.status)).toBe(409)
    await manager.updateNode(node!.ID, after.Version.Index, before.Spec)
    expect((await manager.inspectNode(node!.ID)).Spec.Availability).toBe("active")
    expect(await manager.inspectNode("nosuchnode").catch((e) => e.status)).toBe(404)
  })

  test("services: create, status counts, tasks spread, scale, force update, rollback, remove", async () => {
    const { ID } = await manager.createService(serviceSpec("hm-calls", 3))
    await until(async () => (await status(ID))?.RunningTasks === 3)
    expect(await status(ID)).toMatchObject({ RunningTasks: 3, DesiredTasks: 3 })
    expect(new Set((await running(ID)).map((t) => t.NodeID)).size).toBeGreaterThan(1)

    let service = await manager.inspectService(ID)
    await manager.updateService(ID, service.Version.Index, { ...service.Spec, Mode: { Replicated: { Replicas: 1 } } })
    await until(async () => (await running(ID)).length === 1 && (await status(ID))?.DesiredTasks === 1)

    const before = (await running(ID)).map((t) => t.ID)
    service = await manager.inspectService(ID)
    const spec = service.Spec
    await manager.updateService(ID, service.Version.Index, { ...spec, TaskTemplate: { ...spec.TaskTemplate, ForceUpdate: (spec.TaskTemplate.ForceUpdate ?? 0) + 1 } })
    await until(async () => {
      const now = await running(ID)
      return now.length === 1 && !before.includes(now[0]!.ID)
    })

    // The swarm's own rollback: back to the spec before the forced update.
    service = await manager.inspectService(ID)
    expect(service.PreviousSpec?.TaskTemplate.ForceUpdate).toBe(spec.TaskTemplate.ForceUpdate)
    await manager.updateService(ID, service.Version.Index, service.Spec, { rollback: "previous" })
    await until(async () => (await manager.inspectService(ID)).Spec.TaskTemplate.ForceUpdate === spec.TaskTemplate.ForceUpdate)

    await manager.removeService(ID)
    expect(await manager.inspectService(ID).catch((e) => e.status)).toBe(404)
  })

  test("serviceLogs: every line with the task that wrote it", async () => {
    const { ID } = await manager.createService(serviceSpec("hm-logs", 2, "echo hello from $(hostname); echo oops >&2; sleep 3600"))
    const tasks = await until(async () => {
      const t = await running(ID)
      return t.length === 2 && t
    })
    const lines = await until(async () => {
      const got = []
      for await (const l of manager.serviceLogs(ID, { follow: false, tail: "all" })) got.push(l)
      return got.length >= 4 && got
    })
    expect(lines.filter((l) => l.stream === "stdout").map((l) => l.line)).toEqual([expect.stringMatching(/^hello from /), expect.stringMatching(/^hello from /)])
    expect(lines.filter((l) => l.stream === "stderr").map((l) => l.line)).toEqual(["oops", "oops"])
    expect(new Set(lines.map((l) => l.task))).toEqual(new Set(tasks.map((t) => t.ID)))
    for (const l of lines) {
      expect(l.ts).toMatch(/^\d{4}-/)
      expect(l.node).toBe(tasks.find((t) => t.ID === l.task)!.NodeID!)
    }
    await manager.removeService(ID)
  })

  test("a worker leaves, is removed, and joins again; a lone engine inits a swarm and leaves it", async () => {
    const worker = workers[1]!
    const info = await worker.info()
    const [old] = await manager.listNodes({ name: ["worker2"] })
    await worker.swarmLeave()
    await until(async () => (await manager.inspectNode(old!.ID)).Status.State === "down")
    await manager.removeNode(old!.ID)
    const { Worker } = (await manager.swarmInspect()).JoinTokens
    await worker.swarmJoin({ ListenAddr: "0.0.0.0:2377", AdvertiseAddr: info.Swarm.NodeAddr, RemoteAddrs: [info.Swarm.RemoteManagers[0].Addr], JoinToken: Worker })
    await until(async () => (await manager.listNodes()).filter((n) => n.Status.State === "ready").length === 3)

    const lone = realEngine("b")
    const id = await lone.swarmInit({ ListenAddr: "127.0.0.1:2377", AdvertiseAddr: "127.0.0.1" })
    expect((await lone.listNodes()).map((n) => n.ID)).toEqual([id])
    // A manager leaves only with force.
    expect(await lone.swarmLeave().catch((e) => e.code)).toBe("conflict")
    await lone.swarmLeave({ force: true })
    expect((await lone.info()).Swarm.LocalNodeState).toBe("inactive")
  })
})
