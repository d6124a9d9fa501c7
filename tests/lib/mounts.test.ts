import { expect, test } from "bun:test"
import { parse } from "yaml"
import { mountInventory, parseMount } from "../../lib/mounts.ts"

const project = { project: "web", env: { VOL: "shared-data" }, projectDir: "/srv/stacks/web" }

test.each([
  ["data:/var/lib/data", { type: "volume", source: "data", target: "/var/lib/data", read_only: false }],
  ["data:/d:ro", { type: "volume", source: "data", target: "/d", read_only: true }],
  ["/srv/x:/x", { type: "bind", source: "/srv/x", target: "/x", read_only: false }],
  ["./conf:/etc/conf:ro,z", { type: "bind", source: "./conf", target: "/etc/conf", read_only: true }],
  ["~/cache:/cache", { type: "bind", source: "~/cache", target: "/cache", read_only: false }],
  ["/anon", { type: "volume", target: "/anon", read_only: false }],
  ["${VOL}:/s", { type: "volume", source: "shared-data", target: "/s", read_only: false }],
  [{ type: "volume", source: "data", target: "/d", read_only: true }, { type: "volume", source: "data", target: "/d", read_only: true }],
  [{ type: "volume", target: "/a" }, { type: "volume", source: undefined, target: "/a", read_only: false }],
  [{ type: "bind", source: "./b", target: "/b" }, { type: "bind", source: "./b", target: "/b", read_only: false }],
  [{ type: "tmpfs", target: "/t" }, { type: "tmpfs", source: undefined, target: "/t", read_only: false }],
])("mount %p", (entry, out) => {
  expect(parseMount(entry, project.env)).toEqual(out as any)
})

test("the inventory names every volume, where it is mounted, binds resolved from the project directory", () => {
  const model = parse(`
services:
  app:
    image: busybox
    volumes:
      - data:/data
      - ./conf:/conf:ro
      - /cache
      - type: volume
        source: named
        target: /named
  db:
    image: busybox
    volumes:
      - data:/backup:ro
      - ext:/ext
      - /var/run/x.sock:/x.sock
volumes:
  data:
  named:
    name: \${VOL}
  ext:
    external: true
  legacy:
    external:
      name: old-volume
  unused: {}
`)
  const inv = mountInventory(model, project)
  expect(inv.volumes).toEqual([
    { key: "data", name: "web_data", external: false, explicit_name: false, anonymous: false, mounts: [
      { service: "app", target: "/data", read_only: false },
      { service: "db", target: "/backup", read_only: true },
    ] },
    { key: "named", name: "shared-data", external: false, explicit_name: true, anonymous: false, mounts: [{ service: "app", target: "/named", read_only: false }] },
    { key: "ext", name: "ext", external: true, explicit_name: false, anonymous: false, mounts: [{ service: "db", target: "/ext", read_only: false }] },
    { key: "legacy", name: "old-volume", external: true, explicit_name: false, anonymous: false, mounts: [] },
    { key: "unused", name: "web_unused", external: false, explicit_name: false, anonymous: false, mounts: [] },
    { key: null, name: null, external: false, explicit_name: false, anonymous: true, mounts: [{ service: "app", target: "/cache", read_only: false }] },
  ])
  expect(inv.binds).toEqual([
    { service: "app", source: "/srv/stacks/web/conf", target: "/conf", read_only: true },
    { service: "db", source: "/var/run/x.sock", target: "/x.sock", read_only: false },
  ])
})

test("a model without services or volumes has an empty inventory", () => {
  expect(mountInventory({}, project)).toEqual({ volumes: [], binds: [] })
  expect(mountInventory(null, project)).toEqual({ volumes: [], binds: [] })
})
