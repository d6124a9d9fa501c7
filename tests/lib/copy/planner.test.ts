import { describe, expect, test } from "bun:test"
import { parse } from "yaml"
import { readModel } from "#lib/stacks/model.ts"
import { parsePorts } from "#lib/stacks/model.ts"
import {
  buildsLeftBehind,
  COPY_DEFAULTS,
  imageKey,
  plan,
  type CopyFlags,
  type PlanInput,
  type SideFacts,
} from "#lib/copy/planner.ts"

// The plan reads compose's model of the stack; these documents are written as `docker-compose config`
// (v1) prints them: interpolated, short syntax kept.
const compose = (text: string) => parse(text)

const WEB = compose(`
services:
  app:
    image: busybox
    ports: ["8080:80"]
    volumes: [data:/data, shared:/shared]
volumes:
  data:
  shared:
    name: shared-vol
`)

const DIR = "/data/stacks/web"

/** The plan's input as the export gives it: the builds it does not carry are those outside the stack's folder. */
function input(
  over: {
    compose?: unknown
    name?: string
    sourceVolumes?: string[]
    target?: Partial<SideFacts> & { name?: string }
    sameServer?: boolean
    flags?: Partial<CopyFlags>
  } = {},
): PlanInput {
  const model = readModel(over.compose ?? WEB, "v1", { project: over.name ?? "web", projectDir: DIR })
  return {
    model: { ...model, built: buildsLeftBehind(model, DIR) },
    source: {
      name: over.name ?? "web",
      volumes: over.sourceVolumes ?? ["web_data", "shared-vol", "prod-vol"],
      images: ["busybox:latest"],
    },
    target: { name: "web-staging", stacks: [], volumes: [], ports: [], images: [], ...over.target },
    sameServer: over.sameServer ?? false,
    flags: { ...COPY_DEFAULTS, ...over.flags },
  }
}

const codes = (i: PlanInput) => plan(i).blockers.map((b) => b.code)

describe("blockers (rule 2)", () => {
  test.each<[string, PlanInput, string[]]>([
    ["nothing in the way", input(), []],
    ["the destination has a stack by that name", input({ target: { stacks: ["web-staging"] } }), ["name_taken"]],
    [
      "same server, same name",
      input({
        sameServer: true,
        target: { name: "web", stacks: ["web"], ports: [{ port: 8080, protocol: "tcp", ip: "0.0.0.0" }] },
        flags: { include_volumes: false },
      }),
      ["name_taken", "port_clash", "volume_name_kept"],
    ],
    [
      "a published port is taken there",
      input({ target: { ports: [{ port: 8080, protocol: "tcp", ip: "" }] } }),
      ["port_clash"],
    ],
    [
      "... unless allow_port_clash",
      input({ target: { ports: [{ port: 8080, protocol: "tcp", ip: "" }] }, flags: { allow_port_clash: true } }),
      [],
    ],
    ["same port, other protocol", input({ target: { ports: [{ port: 8080, protocol: "udp", ip: "" }] } }), []],
    [
      "same port, other address",
      input({
        compose: compose(`services: {a: {image: x, ports: ["127.0.0.1:8080:80"]}}`),
        target: { ports: [{ port: 8080, protocol: "tcp", ip: "127.0.0.2" }] },
      }),
      [],
    ],
    [
      "same port, any address",
      input({
        compose: compose(`services: {a: {image: x, ports: ["127.0.0.1:8080:80"]}}`),
        target: { ports: [{ port: 8080, protocol: "tcp", ip: "0.0.0.0" }] },
      }),
      ["port_clash"],
    ],
    ["explicit name: on the same server", input({ sameServer: true }), ["volume_name_kept"]],
    [
      "external on the same server",
      input({
        sameServer: true,
        compose: compose(`services: {a: {image: x, volumes: [e:/e]}}\nvolumes: {e: {external: true}}`),
        sourceVolumes: ["e"],
      }),
      ["volume_name_kept"],
    ],
    ["host paths", input({ compose: compose(`services: {a: {image: x, volumes: ["./conf:/conf"]}}`) }), ["binds"]],
    [
      "... unless allow_binds",
      input({ compose: compose(`services: {a: {image: x, volumes: ["./conf:/conf"]}}`), flags: { allow_binds: true } }),
      [],
    ],
    [
      "anonymous volume with include_volumes",
      input({ compose: compose(`services: {a: {image: x, volumes: ["/cache"]}}`) }),
      ["anonymous_volumes"],
    ],
    [
      "... unless allow_anonymous_volumes",
      input({
        compose: compose(`services: {a: {image: x, volumes: ["/cache"]}}`),
        flags: { allow_anonymous_volumes: true },
      }),
      [],
    ],
    [
      "... or without include_volumes",
      input({ compose: compose(`services: {a: {image: x, volumes: ["/cache"]}}`), flags: { include_volumes: false } }),
      [],
    ],
    ["a volume to fill already exists there", input({ target: { volumes: ["web-staging_data"] } }), ["volume_exists"]],
    [
      "a fixed container_name on the same server (the source holds it)",
      input({ sameServer: true, compose: compose(`services: {a: {image: x, container_name: box}}`) }),
      ["container_name_taken"],
    ],
    [
      "a fixed container_name taken on the destination",
      input({
        compose: compose(`services: {a: {image: x, container_name: box}}`),
        target: { containers: ["other", "box"] },
      }),
      ["container_name_taken"],
    ],
    [
      "... free there",
      input({ compose: compose(`services: {a: {image: x, container_name: box}}`), target: { containers: ["other"] } }),
      [],
    ],
    [
      "... not reported by a server of an earlier release",
      input({ compose: compose(`services: {a: {image: x, container_name: box}}`) }),
      [],
    ],
    [
      "... not when its data is not copied",
      input({ target: { volumes: ["web-staging_data"] }, flags: { include_volumes: false } }),
      [],
    ],
  ])("%s", (_what, i, expected) => {
    expect(codes(i)).toEqual(expected as any)
  })

  test("every blocker says what is in the way", () => {
    const p = plan(input({ target: { stacks: ["web-staging"], ports: [{ port: 8080, protocol: "tcp", ip: "" }] } }))
    expect(p.blockers).toEqual([
      { code: "name_taken", message: "the destination already has a stack named web-staging" },
      { code: "port_clash", message: "port 8080/tcp is already published on the destination" },
    ])
  })

  test("allowed clashes, binds and anonymous volumes become warnings", () => {
    const p = plan(
      input({
        compose: compose(`services: {a: {image: busybox, ports: ["8080:80"], volumes: ["/cache", "/srv/x:/x"]}}`),
        target: { ports: [{ port: 8080, protocol: "tcp", ip: "" }] },
        flags: { allow_port_clash: true, allow_binds: true, allow_anonymous_volumes: true },
      }),
    )
    expect(p.blockers).toEqual([])
    expect(p.warnings).toEqual([
      "port 8080/tcp is already published on the destination; the copy will not start until it is free",
      "the anonymous volume at a:/cache is not copied; the copy starts with an empty one",
      "host path /srv/x (a:/x) is not copied; it must exist on the destination",
    ])
    expect(p.binds).toEqual([{ service: "a", source: "/srv/x", target: "/x", read_only: false, data: false }])
  })
})

describe("the stack's files", () => {
  test("are reported and carried; a bind of one needs no allow_binds, other binds still do", () => {
    const doc = compose(
      `services: {a: {image: x, volumes: ["/data/stacks/web/nginx.conf:/etc/nginx.conf:ro", "/data/stacks/web/data:/data"]}}`,
    )
    const i = input({ compose: doc })
    i.model = {
      ...readModel(doc, "v1", { project: "web", projectDir: "/data/stacks/web", files: ["nginx.conf"] }),
      files: ["nginx.conf"],
    }
    const p = plan(i)
    expect(p.files).toEqual(["nginx.conf"])
    expect(p.binds.map((b) => [b.target, b.file ?? false, b.data])).toEqual([
      ["/etc/nginx.conf", true, false],
      ["/data", false, true],
    ])
    expect(p.blockers.map((b) => b.message)).toEqual([
      "host path /data/stacks/web/data (a:/data) is not copied; allow_binds accepts that it stays behind",
    ])
  })
})

describe("volume names (rules 3 and 4)", () => {
  const volumes = (i: PlanInput) => plan(i).volumes.map((v) => [v.key, v.source, v.target, v.transfer])

  test.each<[string, PlanInput, unknown[]]>([
    [
      "renamed after the destination project; explicit name: kept",
      input(),
      [
        ["data", "web_data", "web-staging_data", true],
        ["shared", "shared-vol", "shared-vol", true],
      ],
    ],
    [
      "copied under the same name to another server",
      input({ target: { name: "web" } }),
      [
        ["data", "web_data", "web_data", true],
        ["shared", "shared-vol", "shared-vol", true],
      ],
    ],
    [
      "name: as compose interpolated it",
      input({
        compose: compose(
          `services: {app: {image: busybox, volumes: [data:/data, shared:/shared]}}\nvolumes: {data: {}, shared: {name: prod-vol}}`,
        ),
      }),
      [
        ["data", "web_data", "web-staging_data", true],
        ["shared", "prod-vol", "prod-vol", true],
      ],
    ],
    [
      "volumes the engine never created leave the plan",
      input({ sourceVolumes: ["web_data"] }),
      [["data", "web_data", "web-staging_data", true]],
    ],
    [
      "without include_volumes nothing is transferred",
      input({ flags: { include_volumes: false } }),
      [
        ["data", "web_data", "web-staging_data", false],
        ["shared", "shared-vol", "shared-vol", false],
      ],
    ],
    [
      "external volumes are left alone",
      input({
        compose: compose(
          `services: {a: {image: x, volumes: [e:/e, l:/l]}}\nvolumes: {e: {external: true}, l: {external: {name: legacy}}}`,
        ),
        sourceVolumes: ["e", "legacy"],
      }),
      [
        ["e", "e", "e", false],
        ["l", "legacy", "legacy", false],
      ],
    ],
  ])("%s", (_what, i, expected) => {
    expect(volumes(i)).toEqual(expected as any)
  })

  test("a volume records whether it exists on the destination and where it is mounted", () => {
    const p = plan(input({ target: { volumes: ["shared-vol"] }, flags: { include_volumes: false } }))
    expect(p.volumes[1]).toEqual({
      key: "shared",
      source: "shared-vol",
      target: "shared-vol",
      external: false,
      explicit_name: true,
      exists_on_destination: true,
      transfer: false,
      mounts: [{ service: "app", target: "/shared", read_only: false }],
    })
    expect(p.warnings).toContain("volume shared-vol already exists on the destination; the copy uses it as it is")
  })

  test("a missing volume and a missing external volume are warnings", () => {
    const p = plan(
      input({
        compose: compose(`services: {a: {image: x, volumes: [e:/e, n:/n]}}\nvolumes: {e: {external: true}, n: {}}`),
        sourceVolumes: ["e"],
      }),
    )
    expect(p.blockers).toEqual([])
    expect(p.warnings).toEqual([
      "external volume e does not exist on the destination; create it there before starting the copy",
      "volume n (web_n) was never created on the source; the copy creates it empty",
      "image x is on neither server; the destination pulls it when the copy starts",
    ])
  })
})

describe("images and ports", () => {
  test("images the destination lacks are sent from the source when it has them", () => {
    const p = plan(
      input({
        compose: compose(
          `services: {a: {image: busybox}, b: {image: "docker.io/library/busybox:latest"}, c: {image: "app:2"}, d: {image: other}}`,
        ),
        target: { images: ["app:2"] },
      }),
    )
    expect(p.images).toEqual([
      { ref: "busybox", on_destination: false, send: true },
      { ref: "docker.io/library/busybox:latest", on_destination: false, send: true },
      { ref: "app:2", on_destination: true, send: false },
      { ref: "other", on_destination: false, send: false },
    ])
    expect(p.warnings).toEqual(["image other is on neither server; the destination pulls it when the copy starts"])
  })

  test("a build from the stack's own files is carried; one reading files outside its folder is a warning", () => {
    const builds = compose(`services:
  own: {build: {context: ${DIR}}}
  sub: {build: {context: ${DIR}/app, dockerfile: ${DIR}/app/Dockerfile.prod}}
  remote: {build: {context: "https://github.com/example/app.git"}}
  outside: {build: {context: /src/app}}
  dockerfile: {build: {context: ${DIR}, dockerfile: /src/Dockerfile}}
  extra: {build: {context: ${DIR}, additional_contexts: {lib: /src/lib}}}
  neighbour: {build: {context: ${DIR}-old}}`)
    expect(plan(input({ compose: builds })).warnings).toEqual(
      ["outside", "dockerfile", "extra", "neighbour"].map(
        (s) => `service ${s} is built from files outside the stack's folder; its build context is not copied`,
      ),
    )
  })

  test.each([
    ["busybox", "busybox:latest"],
    ["docker.io/library/busybox", "busybox:latest"],
    ["registry:5000/app", "registry:5000/app:latest"],
    ["registry:5000/app:1", "registry:5000/app:1"],
    ["app@sha256:abc", "app@sha256:abc"],
  ])("image %s is listed as %s", (ref, key) => expect(imageKey(ref)).toBe(key))

  test.each<[unknown, unknown[]]>([
    ["80", []],
    [80, []],
    ["8080:80", [{ port: 8080, protocol: "tcp", ip: "" }]],
    ["127.0.0.1:8080:80/udp", [{ port: 8080, protocol: "udp", ip: "127.0.0.1" }]],
    ["[::1]:6000:6000", [{ port: 6000, protocol: "tcp", ip: "::1" }]],
    [
      "9090-9091:8080-8081",
      [
        { port: 9090, protocol: "tcp", ip: "" },
        { port: 9091, protocol: "tcp", ip: "" },
      ],
    ],
    ["81:80", [{ port: 81, protocol: "tcp", ip: "" }]],
    [
      { target: 80, published: "9000-9001", protocol: "tcp", mode: "ingress" },
      [
        { port: 9000, protocol: "tcp", ip: "" },
        { port: 9001, protocol: "tcp", ip: "" },
      ],
    ],
    ["127.0.0.1::80", []],
    [
      { target: 80, published: 8081, protocol: "udp", host_ip: "10.0.0.1" },
      [{ port: 8081, protocol: "udp", ip: "10.0.0.1" }],
    ],
    [{ target: 80 }, []],
  ])("ports %p publish %p", (entry, out) => expect(parsePorts(entry)).toEqual(out as any))
})

describe("swarm stacks", () => {
  const swarm = (over: Parameters<typeof input>[0] = {}): PlanInput => {
    const i = input(over)
    return { ...i, model: { ...i.model, volumesOn: "nodes" as const } }
  }

  test("named volumes, whose data lies on every node a task ran on, block a copy with include_volumes", () => {
    const p = plan(swarm())
    expect(p.blockers.map((b) => b.code)).toEqual(["swarm_volumes"])
    expect(p.blockers[0]!.message).toContain("data, shared")
  })

  test("without include_volumes, or without volumes, the copy goes (the volumes start empty)", () => {
    const p = plan(swarm({ flags: { include_volumes: false } }))
    expect(p.blockers).toEqual([])
    expect(p.volumes.every((v) => !v.transfer)).toBe(true)
    expect(codes(swarm({ compose: compose("services:\n  app:\n    image: busybox\n") }))).toEqual([])
  })
})
