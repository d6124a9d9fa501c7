import { expect, test } from "bun:test"
import { parseMount } from "#lib/stacks/mounts.ts"

// Entries as compose's model prints them: v2 the long syntax, v1 the short syntax resolved.
test.each([
  ["data:/var/lib/data:rw", { type: "volume", source: "data", target: "/var/lib/data", read_only: false }],
  ["data:/d:ro", { type: "volume", source: "data", target: "/d", read_only: true }],
  ["/srv/x:/x:rw", { type: "bind", source: "/srv/x", target: "/x", read_only: false }],
  [
    "/srv/stacks/web/conf:/etc/conf:ro,z",
    { type: "bind", source: "/srv/stacks/web/conf", target: "/etc/conf", read_only: true },
  ],
  ["/anon", { type: "volume", target: "/anon", read_only: false }],
  [
    { type: "volume", source: "data", target: "/d", read_only: true, volume: {} },
    { type: "volume", source: "data", target: "/d", read_only: true },
  ],
  [
    { type: "volume", target: "/a", volume: {} },
    { type: "volume", source: undefined, target: "/a", read_only: false },
  ],
  [
    { type: "bind", source: "/srv/b", target: "/b", bind: { create_host_path: true } },
    { type: "bind", source: "/srv/b", target: "/b", read_only: false },
  ],
  [
    { type: "tmpfs", target: "/t" },
    { type: "tmpfs", source: undefined, target: "/t", read_only: false },
  ],
])("mount %p", (entry, out) => {
  expect(parseMount(entry)).toEqual(out as any)
})
