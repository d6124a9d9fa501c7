import { expect, test } from "bun:test"
import type { SwarmService, SwarmTask } from "#lib/engine/swarm.ts"
import { serviceRecord } from "#lib/swarm/services.ts"

const service = (o: Partial<SwarmService["Spec"]> = {}, extra: Partial<SwarmService> = {}): SwarmService => ({
  ID: "s1",
  Version: { Index: 3 },
  CreatedAt: "2026-01-01T00:00:00Z",
  UpdatedAt: "2026-01-02T00:00:00Z",
  Spec: { Name: "web", TaskTemplate: { ContainerSpec: { Image: "reg/app:1@sha256:abc" } }, ...o },
  ...extra,
})
const task = (state: string, desired = "running"): SwarmTask => ({
  ID: `t-${state}`,
  Version: { Index: 1 },
  CreatedAt: "",
  UpdatedAt: "",
  ServiceID: "s1",
  DesiredState: desired,
  Status: { State: state },
})

test("running counts the tasks that run; desired comes from the service's status, else its spec", () => {
  const tasks = [task("running"), task("preparing"), task("running", "shutdown")]
  expect(serviceRecord(service({ Mode: { Replicated: { Replicas: 4 } } }), tasks).replicas).toEqual({
    desired: 4,
    running: 1,
  })
  expect(
    serviceRecord(
      service({ Mode: { Replicated: { Replicas: 4 } } }, { ServiceStatus: { RunningTasks: 1, DesiredTasks: 2 } }),
      tasks,
    ).replicas,
  ).toEqual({ desired: 2, running: 1 })
  expect(serviceRecord(service({ Mode: { Global: {} } }), tasks)).toMatchObject({
    mode: "global",
    replicas: { desired: 3, running: 1 },
  })
  expect(serviceRecord(service({}), []).mode).toBe("replicated")
})

test("stack namespace, ports from the endpoint, update status", () => {
  const r = serviceRecord(
    service(
      { Labels: { "com.docker.stack.namespace": "shop" } },
      {
        Endpoint: { Ports: [{ TargetPort: 80, PublishedPort: 8080, PublishMode: "host" }] },
        UpdateStatus: { State: "paused", Message: "update paused due to failure" },
      },
    ),
    [],
  )
  expect(r).toMatchObject({
    stack: "shop",
    image: "reg/app:1@sha256:abc",
    ports: [{ protocol: "tcp", target: 80, published: 8080, mode: "host" }],
  })
  expect(r.update_status).toEqual({
    state: "paused",
    message: "update paused due to failure",
    started_at: null,
    completed_at: null,
  })
})
