// Portainer's lists read into templates: version 2 and 3 and the bare array; a container template's
// compose file; a stack template's repository; hostile entries left out with why, a list too long or
// of an unknown version refused, every field bounded.
import { expect, test } from "bun:test"
import { parse } from "yaml"
import { fromPortainer, FormatError } from "#lib/catalog/portainer.ts"
import { unifiedDiff } from "#lib/catalog/diff.ts"
import { fill } from "#lib/catalog/values.ts"

test("a container template becomes one service; a stack template names its repository", () => {
  const { templates, warnings } = fromPortainer({
    version: "2",
    templates: [
      {
        type: 1,
        title: "Nginx",
        description: "web",
        image: "nginx:1.27",
        ports: ["8080:80/tcp", "443/tcp", "bad port"],
        privileged: true,
        command: "sh -c 'echo $HOME'",
        labels: [{ name: "a.b", value: "c$d" }],
        restart_policy: "always",
        volumes: [{ container: "/etc/nginx" }, { container: "/srv", bind: "/var/run/docker.sock" }],
      },
      {
        type: 3,
        title: "Stack",
        description: "s",
        repository: { url: "https://git.example.com/r", stackfile: "a/compose.yml" },
      },
      { type: 2, title: "Stack", description: "s", repository: { url: "file:///etc", stackfile: "x" } },
      { type: 9, title: "Odd" },
      "not an object",
    ],
  })
  expect(templates.map((t) => t.id)).toEqual(["nginx", "stack"])
  expect(warnings).toHaveLength(3)
  const service = parse(templates[0]!.compose!).services.nginx
  expect(service.ports).toEqual(["${PORT_80}:80/tcp", "443/tcp"])
  expect(service.command).toBe("sh -c 'echo $$HOME'")
  expect(service.labels).toEqual({ "a.b": "c$$d" })
  expect(service.restart).toBe("always")
  expect(service.volumes).toEqual([
    { type: "volume", source: "etc-nginx", target: "/etc/nginx" },
    { type: "bind", source: "/var/run/docker.sock", target: "/srv" },
  ])
  expect(templates[0]!.warnings.join(" ")).toContain("privileged")
  expect(templates[1]!.repository).toEqual({ url: "https://git.example.com/r", path: "a/compose.yml", ref: "HEAD" })
})

test("a list of an unknown version, without templates, or too long is refused whole", () => {
  expect(() => fromPortainer({ version: "9", templates: [] })).toThrow(FormatError)
  expect(() => fromPortainer({ version: "3" })).toThrow(FormatError)
  expect(() => fromPortainer({ version: "3", templates: Array(5001).fill({}) })).toThrow(/at most 5000/)
  const [t] = fromPortainer([{ title: "x".repeat(10_000), description: "\u0000y", image: "a:1" }]).templates
  expect(t!.title.length).toBe(120)
  expect(t!.description).toBe("y")
})

test("values: defaults, generated secrets, each wrong field named", () => {
  const vars = fromPortainer({
    version: "3",
    templates: [
      {
        title: "A",
        image: "a:1",
        ports: ["81:80"],
        env: [{ name: "X", select: [{ value: "1" }, { value: "2", default: true }] }, { name: "API_KEY" }],
      },
    ],
  }).templates[0]!.variables
  const { env } = fill(vars, { PORT_80: "9000" })
  expect(env.map((e) => [e.key, e.secret ? "…" : e.value])).toEqual([
    ["X", "2"],
    ["API_KEY", "…"],
    ["PORT_80", "9000"],
  ])
  expect(() => fill(vars, { X: "3", PORT_80: "0" })).toThrow(/X: must be one of 1, 2; PORT_80: must be a port/)
})

test("the diff names the lines that changed, with their context", () => {
  const a = "a\nb\nc\nd\ne\nf\ng\nh\n"
  const b = "a\nb\nc\nD\ne\nf\ng\nh\ni\n"
  expect(unifiedDiff(a, b)).toBe(
    "--- installed\n+++ template\n@@ -1,9 +1,10 @@\n a\n b\n c\n-d\n+D\n e\n f\n g\n h\n+i\n \n",
  )
  expect(unifiedDiff(a, a)).toBe("")
})
