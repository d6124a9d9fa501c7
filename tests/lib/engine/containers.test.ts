import { expect, test } from "bun:test"
import { containerDetail, containerRecord, runAction } from "#lib/engine/containers.ts"
import type { ContainerInspect } from "#lib/engine/client.ts"
import { FakeEngine } from "../../support/fake-engine.ts"

test("a list entry becomes a record: name without its slash, ISO time, ports, stack and service", () => {
  const r = containerRecord({
    Id: "abc",
    Names: ["/shop_web_1"],
    Image: "nginx:1",
    ImageID: "sha256:1",
    Created: 1_700_000_000,
    State: "running",
    Status: "Up 2 minutes",
    Ports: [
      { PrivatePort: 80, Type: "tcp" },
      { IP: "0.0.0.0", PrivatePort: 80, PublicPort: 8080, Type: "tcp" },
    ],
    Labels: { "com.docker.compose.project": "shop", "com.docker.compose.service": "web" },
  })
  expect(r).toEqual({
    id: "abc",
    name: "shop_web_1",
    image: "nginx:1",
    image_id: "sha256:1",
    state: "running",
    status: "Up 2 minutes",
    created: "2023-11-14T22:13:20.000Z",
    ports: [
      { private_port: 80, type: "tcp" },
      { ip: "0.0.0.0", private_port: 80, public_port: 8080, type: "tcp" },
    ],
    labels: { "com.docker.compose.project": "shop", "com.docker.compose.service": "web" },
    stack: "shop",
    service: "web",
  })
})

test("an inspect answer becomes a detail: published and exposed ports, mounts, networks, no environment", () => {
  const inspect: ContainerInspect = {
    Id: "abc",
    Name: "/db",
    Created: "2026-01-01T00:00:00Z",
    Image: "sha256:2",
    State: { Status: "exited", Running: false, Paused: false, ExitCode: 3, StartedAt: "0001-01-01T00:00:00Z" },
    Config: { Image: "postgres:16", Tty: false, Env: ["POSTGRES_PASSWORD=s3cret"], Labels: {}, Cmd: ["postgres"] },
    HostConfig: {},
    Mounts: [
      {
        Type: "volume",
        Name: "pg",
        Source: "/var/lib/docker/volumes/pg/_data",
        Destination: "/var/lib/postgresql/data",
        RW: true,
      },
    ],
    NetworkSettings: {
      Ports: { "5432/tcp": [{ HostIp: "127.0.0.1", HostPort: "5433" }], "9000/udp": null },
      Networks: { bridge: {} },
    },
  }
  const d = containerDetail(inspect)
  expect(d).toMatchObject({
    id: "abc",
    name: "db",
    image: "postgres:16",
    image_id: "sha256:2",
    state: "exited",
    started_at: null,
    exit_code: 3,
    command: ["postgres"],
    stack: null,
    ports: [
      { ip: "127.0.0.1", private_port: 5432, public_port: 5433, type: "tcp" },
      { private_port: 9000, type: "udp" },
    ],
    mounts: [
      {
        type: "volume",
        name: "pg",
        source: "/var/lib/docker/volumes/pg/_data",
        destination: "/var/lib/postgresql/data",
        rw: true,
      },
    ],
    networks: ["bridge"],
  })
  expect(JSON.stringify(d)).not.toContain("s3cret")
})

test("a compose project's container is shown through the redactor: name, image, label values and command; others as they are", () => {
  const redactor = (project: string) => (text: string) => (project === "shop" ? text.split("s3cret").join("***") : text)
  const labels = {
    "com.docker.compose.project": "shop",
    "com.docker.compose.service": "db",
    "pw=s3cret": "x",
    dsn: "pg://u:s3cret@db",
  }
  const summary = {
    Id: "abc",
    Names: ["/db-s3cret"],
    Image: "reg/s3cret:1",
    ImageID: "sha256:1",
    Created: 0,
    State: "running",
    Status: "Up",
    Ports: [],
    Labels: labels,
  }
  expect(containerRecord(summary, redactor)).toMatchObject({
    name: "db-***",
    image: "reg/***:1",
    labels: {
      "com.docker.compose.project": "shop",
      "com.docker.compose.service": "db",
      "pw=s3cret": "x",
      dsn: "pg://u:***@db",
    },
    stack: "shop",
    service: "db",
  })
  const inspect: ContainerInspect = {
    Id: "abc",
    Name: "/db",
    Created: "2026-01-01T00:00:00Z",
    Image: "sha256:2",
    State: { Status: "running", Running: true, Paused: false, ExitCode: 0, StartedAt: "2026-01-01T00:00:00Z" },
    Config: {
      Image: "postgres:16",
      Tty: false,
      Env: [],
      Labels: labels,
      Cmd: ["redis-server", "--requirepass", "s3cret"],
    },
    HostConfig: {},
    Mounts: [],
  }
  expect(containerDetail(inspect, redactor).labels.dsn).toBe("pg://u:***@db")
  expect(containerDetail(inspect, redactor).command).toEqual(["redis-server", "--requirepass", "***"])
  const loose = { ...summary, Labels: { "com.docker.compose.project": "other", dsn: "pg://u:s3cret@db" } }
  expect(containerRecord(loose, redactor).labels.dsn).toBe("pg://u:s3cret@db")
  expect(containerRecord({ ...summary, Labels: { dsn: "s3cret" } }, redactor).labels.dsn).toBe("s3cret")
})

test("pause needs a running container and unpause a paused one; neither reaches the engine otherwise", async () => {
  const engine = new FakeEngine()
  engine.addContainer({ name: "web", state: "exited" })
  await expect(runAction(engine, "web", "pause")).rejects.toMatchObject({
    kind: "conflict",
    message: "cannot pause container web: it is exited, not running",
  })
  await expect(runAction(engine, "web", "unpause")).rejects.toMatchObject({ kind: "conflict" })
  expect(engine.calls.some((c) => c.op === "containerAction")).toBe(false)
  expect(await runAction(engine, "web", "start")).toMatchObject({ action: "start", state: "running" })
  expect(await runAction(engine, "web", "pause")).toMatchObject({ action: "pause", state: "paused" })
})
