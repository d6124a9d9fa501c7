import { expect, test } from "bun:test"
import {
  container,
  portText,
  pruneSummary,
  stack,
  type ContainerAnswer,
  type Image,
  type Network,
  type Volume,
} from "../../ui/model.ts"

const record: ContainerAnswer = {
  id: "c1",
  name: "web-1",
  image: "nginx",
  image_id: "sha256:i1",
  state: "running",
  status: "Up",
  created: "2026-01-01T00:00:00Z",
  ports: [{ ip: "0.0.0.0", private_port: 80, public_port: 8080, type: "tcp" }],
  labels: {},
  stack: "web",
  service: "web",
}
const detail = (c: ContainerAnswer, mounts: string[], networks: string[]) => ({
  ...c,
  command: [],
  tty: false,
  started_at: null,
  exit_code: 0,
  mounts: mounts.map((name) => ({ type: "volume", name, source: "", destination: "/data", rw: true })),
  networks,
})
const image = (id: string, tags: string[]): Image => ({
  id,
  tags,
  digests: [],
  created: "",
  size: 0,
  dangling: !tags.length,
  labels: {},
  scan: null,
  scan_state: null,
  update_available: null,
  update_checks: [],
})
const volume = (name: string): Volume => ({
  name,
  driver: "local",
  mountpoint: "",
  created: null,
  scope: "local",
  labels: {},
  stack: null,
})
const network = (id: string, name: string): Network => ({
  id,
  name,
  driver: "bridge",
  scope: "local",
  created: "",
  internal: false,
  labels: {},
  stack: null,
})

test("a container record: its ports as text, no stack as empty, mounts and networks from its detail only", () => {
  expect(container(record)).toMatchObject({
    id: "c1",
    name: "web-1",
    state: "running",
    ports: ["8080→80/tcp"],
    stack: "web",
    service: "web",
    imageId: "sha256:i1",
    mounts: [],
    networks: [],
  })
  expect(container({ ...record, stack: null, service: null })).toMatchObject({ stack: "", service: "" })
  expect(container(detail(record, ["web_data"], ["web_default"]))).toMatchObject({
    mounts: ["web_data"],
    networks: ["web_default"],
  })
  expect(portText({ private_port: 53, type: "udp" })).toBe("53/udp")
  expect(portText({ ip: "127.0.0.1", private_port: 80, public_port: 8080, type: "tcp" })).toBe("127.0.0.1:8080→80/tcp")
})

test("a stack view keeps its services, containers, version and pending flags", () => {
  const answer = {
    name: "web",
    managed: true,
    orchestrator: "compose" as const,
    capabilities: { actions: ["restart" as const], runs_on: "nodes" as const },
    status: "partly running" as const,
    services: [{ name: "web", containers: [record] }],
    current_version: 2,
    env_pending: true,
    files_pending: false,
    files: ["nginx.conf"],
  }
  const s = stack(answer)
  expect(s).toMatchObject({
    name: "web",
    state: "partly running",
    envPending: true,
    filesPending: false,
    files: ["nginx.conf"],
    currentVersion: 2,
    external: false,
    actions: ["restart"],
    runsOn: "nodes",
  })
  expect(s.services[0]!.containers[0]!.name).toBe("web-1")
  expect(stack({ ...answer, name: "other", managed: false, services: [] }).external).toBe(true)
})

test("the prune summary lists stopped containers and unused images, volumes and networks", () => {
  const containers = [
    container(detail(record, ["web_data"], ["web_default"])),
    container({ ...record, id: "c2", name: "old", state: "exited", image: "busybox", image_id: "sha256:i2" }),
  ]
  const images = [image("sha256:i1", ["nginx:latest"]), image("sha256:i2", ["busybox:latest"]), image("sha256:i3", [])]
  const networks = [network("n1", "bridge"), network("n2", "web_default"), network("n3", "gone_default")]
  expect(pruneSummary(containers, images, [volume("web_data"), volume("left_over")], networks)).toEqual({
    containers: ["old"],
    images: ["i3 (dangling)"],
    volumes: ["left_over"],
    networks: ["gone_default"],
  })
})
