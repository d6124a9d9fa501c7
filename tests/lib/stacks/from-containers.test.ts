// The compose file generated from inspect answers recorded from both real engines
// (tests/fixtures/adopt/<flavour>.json: Docker 20.10 and 26.1): four containers made as `docker run`
// makes them — web (ports, a named volume, a bind, a tmpfs, env, a healthcheck, a user network with
// an alias, capabilities, a device, limits, restart, logging), worker (entrypoint, an anonymous
// volume, --tmpfs, --read-only, --link), side (--network container:worker) and helper.
import { describe, expect, test } from "bun:test"
import { join } from "node:path"
import { parse } from "yaml"
import { duration, fromContainers, ports, type InspectedContainer } from "#lib/stacks/from-containers.ts"
import { parseYaml } from "#lib/stacks/yaml.ts"

const fixture = async (flavour: string) => {
  const f = await Bun.file(join(import.meta.dir, "../../fixtures/adopt", `${flavour}.json`)).json()
  const images = Object.fromEntries(Object.values<any>(f.images).map((i) => [i.Id, i]))
  return { containers: f.containers as InspectedContainer[], images }
}
const secret = (key: string) => /PASSWORD/.test(key)

for (const flavour of ["debian12", "current"]) {
  describe(`recorded on ${flavour}`, async () => {
    const { containers, images } = await fixture(flavour)
    const generated = fromContainers(containers, images, secret)
    const doc = parse(generated.compose)
    const { web, worker, side, helper } = doc.services

    test("one service per container, named after it, in the order given", () => {
      expect(Object.keys(doc.services)).toEqual(["web", "worker", "side", "helper"])
      expect(generated.services).toEqual(containers.map((c) => ({ service: c.Name.slice(1), container: c.Id })))
    })

    test("image, command and entrypoint only where they differ from the image's", () => {
      expect(web.image).toBe("svc-test/busybox:latest")
      expect(web.command).toEqual(["httpd", "-f", "-p", "80", "-h", "/www"])
      expect(web.entrypoint).toBeUndefined()
      expect(worker.entrypoint).toEqual(["sh", "-c"])
      expect(worker.command).toEqual(["while true; do sleep 1; done"])
    })

    test("environment: the image's own left out, $ doubled, a secret-looking key interpolated from the stack's environment", () => {
      expect(web.environment).toEqual({ GREETING: "hello $$world", DB_PASSWORD: "${DB_PASSWORD}" })
      expect(worker.environment).toBeUndefined()
      expect(generated.env).toEqual([{ key: "DB_PASSWORD", value: "s3cret", secret: true }])
      expect(generated.compose).not.toContain("s3cret")
    })

    test("ports, binds, named and anonymous volumes as external ones, tmpfs", () => {
      expect(web.ports.sort()).toEqual(["127.0.0.1:15353:53/udp", "18080:80/tcp"])
      const byTarget = Object.fromEntries(web.volumes.map((v: any) => [v.target, v]))
      expect(byTarget["/www"]).toEqual({ type: "bind", source: "/tmp/hm-adopt-bind", target: "/www", read_only: true })
      expect(byTarget["/data"]).toEqual({ type: "volume", source: "hm-adopt-data", target: "/data" })
      expect(byTarget["/run/t"]).toEqual({ type: "tmpfs", target: "/run/t" })
      const anonymous = containers[1]!.Mounts[0]!.Name
      const key = worker.volumes[0].source
      expect(doc.volumes[key]).toEqual({ external: true, name: anonymous })
      expect(doc.volumes["hm-adopt-data"]).toEqual({ external: true })
      expect(worker.tmpfs).toEqual(["/tmp:size=1m"])
      expect(worker.read_only).toBe(true)
    })

    test("networks: a user network external with the aliases given (not the engine's own), the default bridge kept, a shared namespace as service:", () => {
      expect(web.networks).toEqual({ "hm-adopt-net": { aliases: ["www"] } })
      expect(doc.networks).toEqual({ "hm-adopt-net": { external: true } })
      expect(worker.network_mode).toBe("bridge")
      expect(helper.network_mode).toBe("bridge")
      expect(side.network_mode).toBe("service:worker")
      expect(side.hostname).toBeUndefined()
    })

    test("run options: hostname, user, working dir, healthcheck, restart, capabilities, devices, limits, logging; engine defaults left out", () => {
      expect(web).toMatchObject({
        hostname: "webhost",
        user: "0:0",
        working_dir: "/www",
        stop_signal: "SIGINT",
        healthcheck: {
          test: ["CMD-SHELL", "wget -qO- http://127.0.0.1/ || exit 1"],
          interval: "5s",
          timeout: "2s",
          start_period: "1s",
          retries: 3,
        },
        restart: "unless-stopped",
        cap_add: ["NET_ADMIN"],
        cap_drop: ["MKNOD"],
        devices: ["/dev/null:/dev/nothing"],
        mem_limit: 64 * 1024 * 1024,
        cpus: 0.5,
        pids_limit: 100,
        shm_size: 128 * 1024 * 1024,
        init: true,
        extra_hosts: ["db.local:10.0.0.5"],
        ulimits: { nofile: { soft: 1024, hard: 2048 } },
        logging: { driver: "json-file", options: { "max-size": "10m" } },
        labels: { app: "web", "hm.test": "1" },
      })
      for (const key of ["hostname", "restart", "memswap_limit", "runtime", "ipc", "privileged", "logging", "shm_size"])
        expect(helper[key]).toBeUndefined()
    })

    test("what compose cannot express is listed: the --link", () => {
      expect(generated.unexpressed).toEqual([
        { service: "worker", option: "Links", detail: expect.stringContaining("/helper:/worker/h") },
      ])
    })
  })
}

test("a key taken by another container's different value gets the service's prefix", async () => {
  const { containers, images } = await fixture("current")
  const [web] = containers
  const other = { ...web!, Id: "f".repeat(64), Name: "/web-2", Config: { ...web!.Config, Env: ["DB_PASSWORD=other"] } }
  const generated = fromContainers([web!, other], images, secret)
  expect(generated.env).toEqual([
    { key: "DB_PASSWORD", value: "s3cret", secret: true },
    { key: "WEB_2_DB_PASSWORD", value: "other", secret: true },
  ])
  expect(parse(generated.compose).services["web-2"].environment.DB_PASSWORD).toBe("${WEB_2_DB_PASSWORD}")
})

test("durations and port bindings as compose writes them", () => {
  expect([duration(5e9), duration(1.5e9), duration(250e6)]).toEqual(["5s", "1500ms", "250ms"])
  expect(
    ports({
      "80/tcp": [
        { HostIp: "", HostPort: "8080" },
        { HostIp: "::1", HostPort: "8081" },
      ],
      "53/udp": [{ HostIp: "127.0.0.1", HostPort: "" }],
      "9/tcp": null,
    }),
  ).toEqual(["8080:80/tcp", "[::1]:8081:80/tcp", "127.0.0.1::53/udp"])
})

test("100 containers of one image: what they share is written out in each service, never as an alias the parser would refuse", async () => {
  const { containers, images } = await fixture("current")
  const [web] = containers
  const many = Array.from({ length: 100 }, (_, i) => ({
    ...web!,
    Id: i.toString(16).padStart(64, "0"),
    Name: `/web-${i}`,
    Config: { ...web!.Config, Env: [] },
  }))
  const { compose } = fromContainers(many, images, secret)
  expect(compose).not.toContain("*a1")
  expect(Object.keys(((await parseYaml(compose)) as { services: object }).services)).toHaveLength(100)
})
