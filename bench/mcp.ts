// bench/mcp: what /mcp costs on top of the API, against a private engine with 20 containers. The
// tool list_containers through an open MCP session against GET /api/containers?all=true in the same
// run (the tool calls that route in-process, so the ratio is the protocol's overhead), the time to
// open a session (initialize, initialized) against one tools/list on an open session, and the
// service's RSS per idle session.
// Run: bun bench/mcp.ts (as root, like the tests)
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { dockerEngine } from "#lib/engine/client.ts"
import { median, ratio, rssMiB, startEngine, startService } from "./support.ts"

const CONTAINERS = 20
const ITERATIONS = 200
const SESSIONS = 100

async function timed(n: number, fn: () => Promise<unknown>): Promise<number> {
  const xs: number[] = []
  for (let i = 0; i < n; i++) {
    const t0 = performance.now()
    await fn()
    xs.push(performance.now() - t0)
  }
  return median(xs)
}

const engine = startEngine("mcp")
const service = await startService({ DOCKER_HOST: engine.host, SVC_MCP: "full" })
console.log(`service: ${service.compiled ? "the compiled binary" : "bun server.ts"}`)
try {
  const docker = dockerEngine(engine.host)
  for (let i = 0; i < CONTAINERS; i++) {
    const { Id } = await docker.createContainer(
      { Image: "svc-test/busybox:latest", Cmd: ["sleep", "3600"], Labels: { "hm.bench": "1" } },
      `bench-mcp-${i}`,
    )
    await docker.containerAction(Id, "start")
  }
  const open = async () => {
    const client = new Client({ name: "bench", version: "1" })
    const transport = new StreamableHTTPClientTransport(new URL(`${service.url}/mcp`))
    await client.connect(transport)
    return { client, end: () => transport.terminateSession() }
  }
  const { client, end } = await open()
  const api = () => fetch(`${service.url}/api/containers?all=true`).then((r) => r.json())
  const tool = () => client.callTool({ name: "list_containers", arguments: { all: true } })
  await timed(20, api)
  await timed(20, tool)
  ratio(
    "list_containers tool vs GET /api/containers (median)",
    await timed(ITERATIONS, tool),
    await timed(ITERATIONS, api),
    " ms",
  )
  ratio(
    "opening a session vs tools/list (median)",
    await timed(50, async () => (await open()).end()),
    await timed(50, () => client.listTools()),
    " ms",
  )
  await end()

  Bun.gc(true)
  await Bun.sleep(500)
  const before = rssMiB(service.proc.pid)
  const idle = []
  for (let i = 0; i < SESSIONS; i++) idle.push(await open())
  await Bun.sleep(500)
  const after = rssMiB(service.proc.pid)
  console.log(
    `RSS per idle session: ${(((after - before) * 1024) / SESSIONS).toFixed(0)} KiB (${SESSIONS} sessions, ${before.toFixed(1)} -> ${after.toFixed(1)} MiB)`,
  )
  for (const session of idle) await session.end()
} finally {
  await service.stop()
  engine.stop()
}
