import { expect, test } from "bun:test"
import { applyList, distinct, matches, readState, writeState, type ListSpec } from "../../ui/lists.ts"
import {
  stackHealth,
  stackRows,
  stack,
  type ContainerAnswer,
  type Image,
  type StackListAnswer,
} from "../../ui/model.ts"

interface Row {
  name: string
  state: string
  cpu: number | null
}
const rows: Row[] = [
  { name: "web-10", state: "running", cpu: 3 },
  { name: "web-2", state: "exited", cpu: null },
  { name: "db", state: "running", cpu: 40 },
  { name: "cache", state: "running", cpu: 3 },
]
const spec: ListSpec<Row> = {
  text: (r) => `${r.name} ${r.state}`,
  filters: { state: { label: "State", choices: (rs) => distinct(rs, (r) => r.state), test: (r, v) => r.state === v } },
  sorts: { name: { label: "Name", value: (r) => r.name }, cpu: { label: "CPU", value: (r) => r.cpu, desc: true } },
}
const names = (q: string) => applyList(rows, spec, readState(q, spec)).map((r) => r.name)

test("the address's query names the search, the filters and the sort; the defaults are left out of it", () => {
  expect(readState("", spec)).toEqual({ q: "", filters: {}, sort: "name", desc: false })
  expect(readState("q=web&state=running&sort=-cpu&other=1", spec)).toEqual({
    q: "web",
    filters: { state: "running" },
    sort: "cpu",
    desc: true,
  })
  // An unknown sort or filter is the default, not an error.
  expect(readState("sort=size&colour=red", spec)).toEqual({ q: "", filters: {}, sort: "name", desc: false })
  expect(writeState({ q: "", filters: {}, sort: "name", desc: false }, spec)).toBe("")
  expect(writeState({ q: "a b", filters: { state: "exited", colour: "red" }, sort: "cpu", desc: true }, spec)).toBe(
    "q=a+b&state=exited&sort=-cpu",
  )
  const state = { q: "web 1", filters: { state: "running" }, sort: "name", desc: true }
  expect(readState(writeState(state, spec), spec)).toEqual(state)
})

test("search wants every word, in any case; filters and search together", () => {
  expect(matches("web-10 running", "RUN web")).toBe(true)
  expect(matches("web-10 running", "web exited")).toBe(false)
  expect(names("q=web")).toEqual(["web-2", "web-10"])
  expect(names("q=web&state=running")).toEqual(["web-10"])
  expect(names("state=exited")).toEqual(["web-2"])
  expect(names("q=nothing")).toEqual([])
})

test("sorting: names with numbers in their order, numbers largest first when asked, no value last either way, equal rows in their order", () => {
  expect(names("")).toEqual(["cache", "db", "web-2", "web-10"])
  expect(names("sort=-name")).toEqual(["web-10", "web-2", "db", "cache"])
  expect(names("sort=-cpu")).toEqual(["db", "web-10", "cache", "web-2"])
  expect(names("sort=cpu")).toEqual(["web-10", "cache", "db", "web-2"])
})

test("a filter's choices come from the rows, each value once, sorted", () => {
  expect(distinct(rows, (r) => r.state)).toEqual([
    ["exited", "exited"],
    ["running", "running"],
  ])
})

const record = (name: string, state: string, extra: Partial<ContainerAnswer> = {}): ContainerAnswer => ({
  id: name,
  name,
  image: "nginx:1",
  image_id: "sha256:n1",
  state,
  status: state === "running" ? "Up 1 minute" : "Exited (0)",
  created: "2026-01-01T00:00:00Z",
  ports: [],
  labels: {},
  stack: "web",
  service: "app",
  ...extra,
})
const answer = (
  name: string,
  status: StackListAnswer["status"],
  containers: ContainerAnswer[],
  more: Partial<StackListAnswer> = {},
): StackListAnswer => ({
  name,
  managed: true,
  orchestrator: "compose",
  capabilities: { actions: ["start", "stop", "restart", "pause", "unpause"], runs_on: "engine" },
  status,
  services: [{ name: "app", containers }],
  current_version: 1,
  env_pending: false,
  files_pending: false,
  files: [],
  git: null,
  ...more,
})
const image = (id: string, tags: string[], more: Partial<Image> = {}): Image => ({
  id,
  tags,
  digests: [],
  created: "",
  size: 0,
  dangling: false,
  labels: {},
  scan: null,
  scan_state: null,
  update_available: null,
  update_checks: [],
  ...more,
})
const scan = (counts: Partial<Record<"critical" | "high" | "medium", number>>) =>
  ({
    status: "done",
    scanned_at: "2026-01-01T00:00:00Z",
    scanner: "trivy",
    counts,
    error: null,
  }) as unknown as Image["scan"]

test("a stack's health: running when all of it runs and none is unhealthy, stopped when nothing runs, else degraded", () => {
  expect(stackHealth(stack(answer("a", "running", [record("a1", "running")])))).toBe("running")
  expect(
    stackHealth(stack(answer("a", "running", [record("a1", "running", { status: "Up 2 minutes (unhealthy)" })]))),
  ).toBe("degraded")
  expect(stackHealth(stack(answer("a", "partly running", [record("a1", "running"), record("a2", "exited")])))).toBe(
    "degraded",
  )
  expect(stackHealth(stack(answer("a", "paused", [record("a1", "paused")])))).toBe("degraded")
  expect(stackHealth(stack(answer("a", "stopped", [record("a1", "exited")])))).toBe("stopped")
})

test("a stack row joins its resource use, its images' updates and critical and high CVEs (each image once), and its git source", () => {
  const git = { url: "https://git.example/app.git", ref: "main", last_verdict: "applied" }
  const list = [
    answer("web", "running", [record("w1", "running"), record("w2", "running")], { git }),
    answer("db", "stopped", [record("d1", "exited", { image: "postgres:16", image_id: "sha256:p16" })]),
  ]
  const stats = {
    stacks: [
      {
        name: "web",
        containers: 2,
        cpu_percent: 12.5,
        cpu_host_percent: 3,
        memory_bytes: 5e6,
        net_rx_bytes_per_s: 0,
        net_tx_bytes_per_s: 0,
        block_read_bytes_per_s: 0,
        block_write_bytes_per_s: 0,
        pids: 4,
        history: { interval: 60, time: [1, 2], cpu_percent: [10, 12.5], memory_bytes: [4e6, 5e6] },
      },
    ],
  }
  const images = [
    image("sha256:n1", ["nginx:1"], { update_available: true, scan: scan({ critical: 1, high: 2, medium: 7 }) }),
    image("sha256:p16", ["postgres:16"], { update_available: false, scan: scan({ high: 3 }) }),
    image("sha256:other", ["redis:7"], { update_available: true, scan: scan({ critical: 9 }) }),
  ]
  const [web, db] = stackRows(list, stats, images)
  expect(web).toMatchObject({
    name: "web",
    health: "running",
    cpu: 12.5,
    memory: 5e6,
    cpuHistory: [10, 12.5],
    memHistory: [4e6, 5e6],
    updates: ["nginx:1"],
    cves: { critical: 1, high: 2 },
    git,
  })
  expect(db).toMatchObject({
    name: "db",
    health: "stopped",
    cpu: null,
    memory: null,
    cpuHistory: [],
    updates: [],
    cves: { critical: 0, high: 3 },
    git: null,
  })
  // Without stats (a server that has none) the rows are still there.
  expect(stackRows(list, null, [])[0]).toMatchObject({ cpu: null, updates: [], cves: { critical: 0, high: 0 } })
})
