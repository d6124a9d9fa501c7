import { expect, test } from "bun:test"
import { container, image, network, portText, pruneSummary, stack, volume } from "../../ui/model.ts"

const record = { id: "c1", name: "web-1", image: "nginx", image_id: "sha256:i1", state: "running", status: "Up", ports: [{ ip: "0.0.0.0", private_port: 80, public_port: 8080, type: "tcp" }], labels: {}, stack: "web", service: "web" }

test("container records of the service and of the engine read alike", () => {
  const engineShape = { Id: "c1", Names: ["/web-1"], Image: "nginx", ImageID: "sha256:i1", State: "running", Status: "Up", Ports: [{ IP: "0.0.0.0", PrivatePort: 80, PublicPort: 8080, Type: "tcp" }], Labels: { "com.docker.compose.project": "web", "com.docker.compose.service": "web" } }
  const a = container(record)
  expect(a).toMatchObject({ id: "c1", name: "web-1", state: "running", ports: ["8080→80/tcp"], stack: "web", service: "web", imageId: "sha256:i1" })
  expect(container(engineShape)).toEqual(a)
  expect(portText({ private_port: 53, type: "udp" })).toBe("53/udp")
  expect(portText({ ip: "127.0.0.1", private_port: 80, public_port: 8080, type: "tcp" })).toBe("127.0.0.1:8080→80/tcp")
})

test("a stack view keeps its services, containers, version and pending flag", () => {
  const s = stack({ name: "web", managed: true, status: "partly running", services: [{ name: "web", containers: [record] }], current_version: 2, env_pending: true })
  expect(s).toMatchObject({ name: "web", state: "partly running", envPending: true, currentVersion: 2, external: false })
  expect(s.services[0]!.containers[0]!.name).toBe("web-1")
  expect(stack({ name: "other", managed: false, status: "running", services: [] }).external).toBe(true)
})

test("the prune summary lists stopped containers and unused images, volumes and networks", () => {
  const containers = [
    container({ ...record, mounts: [{ name: "web_data" }], networks: ["web_default"] }),
    container({ ...record, id: "c2", name: "old", state: "exited", image: "busybox", image_id: "sha256:i2" }),
  ]
  const images = [image({ id: "sha256:i1", tags: ["nginx:latest"] }), image({ id: "sha256:i2", tags: ["busybox:latest"] }), image({ id: "sha256:i3", tags: [] })]
  const volumes = [volume({ name: "web_data" }), volume({ name: "left_over" })]
  const networks = [network({ id: "n1", name: "bridge" }), network({ id: "n2", name: "web_default" }), network({ id: "n3", name: "gone_default" })]
  expect(pruneSummary(containers, images, volumes, networks)).toEqual({
    containers: ["old"],
    images: ["i3 (dangling)"],
    volumes: ["left_over"],
    networks: ["gone_default"],
  })
})
