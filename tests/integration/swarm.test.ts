// The swarm's engine calls and its routes against the test swarm of scripts/swarm.sh (a manager and
// two workers), on both flavours.
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { dockerEngine } from "#lib/engine/client.ts"
import { engineHost, realEngine } from "../support/engine.ts"
import { startService, type Service } from "../support/service.ts"
import { collect } from "../support/sse.ts"
import { serviceSpec, swarmManager, swarmManagerHost, swarmScript, swarmWorkerHosts, until } from "../support/swarm.ts"

const manager = swarmManager()
const workers = swarmWorkerHosts().map((h) => dockerEngine(h))
const running = async (service: string) =>
  (await manager.listTasks({ service: [service], "desired-state": ["running"] })).filter(
    (t) => t.Status.State === "running",
  )
const status = async (id: string) => (await manager.listServices({ id: [id] }))[0]?.ServiceStatus

afterAll(async () => {
  for (const s of await manager.listServices({ label: ["hm.test"] })) await manager.removeService(s.ID).catch(() => {})
})

describe("swarm engine calls", () => {
  test("the manager lists three ready nodes, each with its own hostname", async () => {
    const nodes = await manager.listNodes()
    expect(nodes.map((n) => `${n.Description.Hostname} ${n.Status.State} ${n.Spec.Role}`).sort()).toEqual([
      "manager ready manager",
      "worker1 ready worker",
      "worker2 ready worker",
    ])
    expect(nodes.find((n) => n.Spec.Role === "manager")?.ManagerStatus?.Leader).toBe(true)
  })

  test("swarmInspect on the manager; not a manager (a worker, an engine in no swarm) is 409 not_swarm_manager", async () => {
    const swarm = await manager.swarmInspect()
    expect(swarm.ID).toBeTruthy()
    expect(swarm.JoinTokens.Worker).toStartWith("SWMTKN-")
    for (const engine of [workers[0]!, realEngine("a")]) {
      const err = await engine.swarmInspect().then(
        () => undefined,
        (e) => e,
      )
      expect(err).toMatchObject({ kind: "conflict", code: "not_swarm_manager" })
      expect(await engine.listNodes().catch((e) => e.code)).toBe("not_swarm_manager")
    }
  })

  test("inspectNode and updateNode: labels and availability, with the version read", async () => {
    const [node] = await manager.listNodes({ name: ["worker1"] })
    const before = await manager.inspectNode(node!.ID)
    await manager.updateNode(node!.ID, before.Version.Index, {
      ...before.Spec,
      Labels: { zone: "a" },
      Availability: "pause",
    })
    const after = await manager.inspectNode(node!.ID)
    expect(after.Spec).toMatchObject({ Labels: { zone: "a" }, Availability: "pause" })
    // The version read before the change is stale now.
    expect(await manager.updateNode(node!.ID, before.Version.Index, before.Spec).catch((e) => e.kind)).toBe("conflict")
    await manager.updateNode(node!.ID, after.Version.Index, before.Spec)
    expect((await manager.inspectNode(node!.ID)).Spec.Availability).toBe("active")
    expect(await manager.inspectNode("nosuchnode").catch((e) => e.kind)).toBe("not_found")
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
    await manager.updateService(ID, service.Version.Index, {
      ...spec,
      TaskTemplate: { ...spec.TaskTemplate, ForceUpdate: (spec.TaskTemplate.ForceUpdate ?? 0) + 1 },
    })
    await until(async () => {
      const now = await running(ID)
      return now.length === 1 && !before.includes(now[0]!.ID)
    })

    // The swarm's own rollback: back to the spec before the forced update.
    service = await manager.inspectService(ID)
    expect(service.PreviousSpec?.TaskTemplate.ForceUpdate).toBe(spec.TaskTemplate.ForceUpdate)
    await manager.updateService(ID, service.Version.Index, service.Spec, { rollback: "previous" })
    await until(
      async () => (await manager.inspectService(ID)).Spec.TaskTemplate.ForceUpdate === spec.TaskTemplate.ForceUpdate,
    )

    await manager.removeService(ID)
    expect(await manager.inspectService(ID).catch((e) => e.kind)).toBe("not_found")
  })

  test("serviceLogs: every line with the task that wrote it", async () => {
    const { ID } = await manager.createService(
      serviceSpec("hm-logs", 2, "echo hello from $(hostname); echo oops >&2; sleep 3600"),
    )
    const tasks = await until(async () => {
      const t = await running(ID)
      return t.length === 2 && t
    })
    const lines = await until(async () => {
      const got = []
      for await (const l of manager.serviceLogs(ID, { follow: false, tail: "all" })) got.push(l)
      return got.length >= 4 && got
    })
    expect(lines.filter((l) => l.stream === "stdout").map((l) => l.line)).toEqual([
      expect.stringMatching(/^hello from /),
      expect.stringMatching(/^hello from /),
    ])
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
    await worker.swarmJoin({
      ListenAddr: "0.0.0.0:2377",
      AdvertiseAddr: info.Swarm.NodeAddr,
      RemoteAddrs: [info.Swarm.RemoteManagers[0].Addr],
      JoinToken: Worker,
    })
    await until(async () => (await manager.listNodes()).filter((n) => n.Status.State === "ready").length === 3)

    const lone = realEngine("b")
    const id = await lone.swarmInit({ ListenAddr: "127.0.0.1:2377", AdvertiseAddr: "127.0.0.1" })
    expect((await lone.listNodes()).map((n) => n.ID)).toEqual([id])
    // A manager leaves only with force.
    expect(await lone.swarmLeave().catch((e) => e.code)).toBe("conflict")
    await lone.swarmLeave({ force: true })
    expect((await lone.info()).Swarm.LocalNodeState).toBe("inactive")
    // The bridge a swarm made may stay after leaving (in one run on a loaded machine Docker 20.10 had
    // none left to remove): engine b goes back as the other tests know it.
    await lone.removeNetwork("docker_gwbridge").catch((err) => {
      if (err.code !== "not_found") throw err
    })
  })
})

describe("swarm routes", () => {
  let svc: Service
  let lone: Service
  /** Every answer's text but the join tokens' own, and every event the service published. */
  const seen: string[] = []
  const events = new AbortController()
  let eventLog = ""
  const call = async (
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
    on = () => svc,
  ) => {
    const res = await fetch(`${on().url}${path}`, {
      method,
      headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    const text = await res.text()
    if (!path.endsWith("/join-tokens")) seen.push(text)
    return { status: res.status, body: text ? JSON.parse(text) : undefined }
  }
  const services = async () => (await call("GET", "/api/swarm/services")).body as any[]
  const service = async (name: string) => (await call("GET", `/api/swarm/services/${name}`)).body
  const nodes = async () => (await call("GET", "/api/swarm/nodes")).body as any[]
  const runningOn = async (name: string) =>
    (await service(name)).tasks.filter((t: any) => t.desired_state === "running" && t.state === "running")

  /** Keeps every event a service publishes in `eventLog`. */
  const follow = (on: Service) =>
    void (async () => {
      const res = await fetch(`${on.url}/api/events`, { signal: events.signal })
      const decoder = new TextDecoder()
      for await (const chunk of res.body!) eventLog += decoder.decode(chunk, { stream: true })
    })().catch(() => {})

  beforeAll(async () => {
    svc = await startService({ DOCKER_HOST: swarmManagerHost(), SVC_METRICS: "on" })
    lone = await startService({ DOCKER_HOST: engineHost("a") })
    follow(svc)
  })
  afterAll(async () => {
    await svc?.stop()
    await lone?.stop()
  })

  test("the swarm and its three nodes; an engine in no swarm is inactive and its swarm routes are 409 not_swarm_manager", async () => {
    expect((await call("GET", "/api/swarm")).body).toMatchObject({ active: true, role: "manager", nodes: 3 })
    expect((await call("GET", "/api/health")).body.swarm).toMatchObject({ active: true, role: "manager", nodes: 3 })
    expect((await call("GET", "/api/dashboard")).body.swarm).toMatchObject({ active: true, role: "manager" })
    expect((await nodes()).map((n) => `${n.hostname} ${n.role} ${n.state}`)).toEqual([
      "manager manager ready",
      "worker1 worker ready",
      "worker2 worker ready",
    ])
    expect((await call("GET", "/api/swarm", undefined, {}, () => lone)).body).toMatchObject({
      active: false,
      role: null,
    })
    for (const path of ["/api/swarm/nodes", "/api/swarm/services", "/api/swarm/services/x"]) {
      const res = await call("GET", path, undefined, {}, () => lone)
      expect([res.status, res.body.error.code]).toEqual([409, "not_swarm_manager"])
      expect(res.body.error.message).toContain("not a swarm manager")
    }
  })

  test("scale up and down, drain a worker, stop a worker's daemon: the tasks move and the counts follow", async () => {
    await manager.createService(serviceSpec("hm-web", 3))
    await until(async () => (await services()).find((s) => s.name === "hm-web")?.replicas.running === 3)
    expect(
      (await service("hm-web")).tasks
        .filter((t: any) => t.state === "running")
        .map((t: any) => t.node)
        .sort(),
    ).toEqual(["manager", "worker1", "worker2"])

    expect((await call("POST", "/api/swarm/services/hm-web/scale", { replicas: 5 })).body.replicas.desired).toBe(5)
    await until(async () => (await services()).find((s) => s.name === "hm-web")?.replicas.running === 5)
    await call("POST", "/api/swarm/services/hm-web/scale", { replicas: 2 })
    await until(
      async () =>
        (await runningOn("hm-web")).length === 2 &&
        (await services()).find((s) => s.name === "hm-web")?.replicas.running === 2,
    )

    // Drain worker1: nothing runs there, the service keeps its two replicas elsewhere.
    const drained = await call("POST", "/api/swarm/nodes/worker1", { availability: "drain" })
    expect(drained.body).toMatchObject({ hostname: "worker1", availability: "drain" })
    await until(
      async () =>
        (await nodes()).find((n) => n.hostname === "worker1")?.tasks_running === 0 &&
        (await runningOn("hm-web")).length === 2,
    )
    expect((await runningOn("hm-web")).map((t: any) => t.node)).not.toContain("worker1")
    await call("POST", "/api/swarm/nodes/worker1", { availability: "active" })

    // worker2's daemon stops: the node turns down, its task is started again on another node.
    // Spread placement put the drained task on the node without one: manager and worker2 run it now.
    expect((await runningOn("hm-web")).map((t: any) => t.node).sort()).toEqual(["manager", "worker2"])
    await swarmScript("node-stop", "2")
    try {
      await until(async () => (await nodes()).find((n) => n.hostname === "worker2")?.state === "down", 90)
      await until(async () => {
        const running = await runningOn("hm-web")
        return running.length === 2 && running.every((t: any) => t.node !== "worker2")
      }, 90)
    } finally {
      await swarmScript("node-start", "2")
    }
    await until(async () => (await nodes()).find((n) => n.hostname === "worker2")?.state === "ready", 90)
  }, 300_000)

  test("force-update replaces every task; rollback returns to the spec before", async () => {
    const before = (await runningOn("hm-web")).map((t: any) => t.id)
    expect((await call("POST", "/api/swarm/services/hm-web/force-update")).status).toBe(200)
    await until(async () => {
      const now = await runningOn("hm-web")
      return now.length === 2 && now.every((t: any) => !before.includes(t.id))
    })
    const scaled = await call("POST", "/api/swarm/services/hm-web/scale", { replicas: 3 })
    expect(scaled.body.replicas.desired).toBe(3)
    const back = await call("POST", "/api/swarm/services/hm-web/rollback")
    expect(back.status).toBe(200)
    await until(
      async () =>
        (await services()).find((s) => s.name === "hm-web")?.replicas.desired === 2 &&
        (await runningOn("hm-web")).length === 2,
    )
    expect((await service("hm-web")).update_status?.state).toMatch(/^rollback_/)
  }, 120_000)

  test("service logs over SSE carry the task id as container", async () => {
    const { ID } = await manager.createService(serviceSpec("hm-said", 2, "echo said-$(hostname); sleep 3600"))
    const tasks = await until(async () => {
      const t = await runningOn("hm-said")
      return t.length === 2 && t
    })
    const lines = await until(async () => {
      const got = await collect(await fetch(`${svc.url}/api/swarm/services/${ID}/logs?follow=false&tail=all`))
      return got.length === 2 && got
    })
    expect(lines.map((l) => [l.service, l.stream])).toEqual([
      ["hm-said", "stdout"],
      ["hm-said", "stdout"],
    ])
    expect(lines.every((l) => l.line.startsWith("said-"))).toBe(true)
    expect(lines.map((l) => l.container).sort()).toEqual(tasks.map((t: any) => t.id).sort())
    // Followed: the lines come, the stream stays open until the client goes.
    const abort = new AbortController()
    const followed = await collect(
      await fetch(`${svc.url}/api/swarm/services/hm-said/logs?tail=all`, { signal: abort.signal }),
      (m) => m.length === 2,
    )
    abort.abort()
    expect(followed).toHaveLength(2)
  })

  test("bad input: an unknown node or service is 404, replicas -1 is 400, a bad availability 400", async () => {
    expect((await call("GET", "/api/swarm/nodes/nosuchnode")).status).toBe(404)
    expect((await call("POST", "/api/swarm/nodes/nosuchnode", { availability: "drain" })).status).toBe(404)
    expect((await call("POST", "/api/swarm/nodes/worker1", { availability: "gone" })).status).toBe(400)
    expect((await call("GET", "/api/swarm/services/nosuchservice")).status).toBe(404)
    expect((await call("POST", "/api/swarm/services/hm-web/scale", { replicas: -1 })).status).toBe(400)
    expect((await call("POST", "/api/swarm/services/nosuchservice/scale", { replicas: 1 })).status).toBe(404)
  })

  test("join tokens only with the cluster token; a worker leaves and joins again, a lone engine inits and leaves, through the API; the tokens in no other answer, event, metric or log line", async () => {
    const cluster = (await call("POST", "/api/cluster/token")).body.token
    expect((await call("GET", "/api/swarm/join-tokens")).status).toBe(401)
    const tokens = await call("GET", "/api/swarm/join-tokens", undefined, { authorization: `Bearer ${cluster}` })
    expect(tokens.status).toBe(200)
    const { worker, manager: managerToken } = tokens.body
    expect(worker).toStartWith("SWMTKN-")
    expect(managerToken).toStartWith("SWMTKN-")

    // worker2 leaves through its own service, is removed on the manager, and joins again with the token.
    const onWorker = await startService({ DOCKER_HOST: swarmWorkerHosts()[1]! })
    const lonely = await startService({ DOCKER_HOST: engineHost("b") })
    try {
      follow(onWorker)
      follow(lonely)
      const before = (await call("GET", "/api/swarm", undefined, {}, () => onWorker)).body
      expect(before).toMatchObject({ active: true, role: "worker" })
      expect((await call("POST", "/api/swarm/leave", {}, {}, () => onWorker)).body).toMatchObject({ active: false })
      await until(async () => (await call("GET", `/api/swarm/nodes/${before.node_id}`)).body.state === "down", 90)
      expect((await call("DELETE", `/api/swarm/nodes/${before.node_id}`)).body).toEqual({
        id: before.node_id,
        removed: true,
      })
      const joined = await call(
        "POST",
        "/api/swarm/join",
        { remote_addrs: [before.managers[0].addr], join_token: worker, advertise_addr: before.node_addr },
        {},
        () => onWorker,
      )
      expect(joined.body).toMatchObject({ active: true, role: "worker" })
      await until(async () => (await nodes()).filter((n) => n.state === "ready").length === 3, 60)
      expect((await nodes()).map((n) => n.hostname)).toEqual(["manager", "worker1", "worker2"])

      // A lone engine makes a swarm of its own and leaves it (a manager only with force).
      expect(
        (
          await call(
            "POST",
            "/api/swarm/init",
            { advertise_addr: "127.0.0.1", listen_addr: "127.0.0.1:2377" },
            {},
            () => lonely,
          )
        ).body,
      ).toMatchObject({ active: true, role: "manager", nodes: 1 })
      expect((await call("POST", "/api/swarm/leave", {}, {}, () => lonely)).status).toBe(409)
      expect((await call("POST", "/api/swarm/leave", { force: true }, {}, () => lonely)).body).toMatchObject({
        active: false,
      })
      await realEngine("b").removeNetwork("docker_gwbridge")
    } finally {
      await onWorker.stop()
      await lonely.stop()
    }

    // Everything once more: the swarm, health, dashboard, history, metrics; every event; the logs.
    await call("GET", "/api/swarm")
    await call("GET", "/api/health")
    await call("GET", "/api/dashboard")
    await call("GET", "/api/events/history")
    const metrics = await (await fetch(`${svc.url}/metrics`)).text()
    expect(metrics).toContain('harbormaster_swarm_nodes{state="ready",availability="active"} 3')
    events.abort()
    await svc.stop()
    const logs = await Promise.all(
      [svc, onWorker, lonely].flatMap((s) => [
        new Response(s.proc.stdout as ReadableStream).text(),
        new Response(s.proc.stderr as ReadableStream).text(),
      ]),
    )
    const all = [...seen, eventLog, metrics, ...logs].join("\n")
    expect(eventLog).toContain('"action":"join"')
    expect(eventLog).toContain('"action":"init"')
    expect(all).toContain("hm-web")
    for (const token of [worker, managerToken, worker.split("-").at(-1), managerToken.split("-").at(-1)])
      expect(all).not.toContain(token)
  }, 240_000)
})
