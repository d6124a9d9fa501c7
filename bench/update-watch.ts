// bench/update-watch: how soon a guarded update of a failing image comes to its verdict, against the
// watch window. A private engine, a registry and the service share a network namespace; v1 of a small
// image is deployed, then new v1 images are pushed and `POST /api/stacks/{name}/update` is timed from
// the request to the answer: one that exits at start and one whose healthcheck fails (both rolled
// back: the time covers the pull, the up, the failed watch, the re-tag, the second up and the watch
// of the rollback), and a good one (updated, early on its healthcheck) as the baseline of the same
// run. Prints each time and its ratio to the window (well below 1: the decision came early).
// Run: bun bench/update-watch.ts [window seconds, default 60]   (as root; BENCH_FLAVOURS picks engines)
import { join } from "node:path"
import { dockerEngine, type Engine } from "#lib/engine/client.ts"
import { startRegistry, veth } from "../tests/support/netns.ts"
import { startService } from "../tests/support/service.ts"
import { benchFlavours, composeTools, median, root, startEngine } from "./support.ts"

const WINDOW = Number(process.argv[2] ?? 60)
const ROUNDS = 3
const LOOP = "trap 'exit 0' TERM; while :; do sleep 1; done"

async function variant(engine: Engine, repo: string, kind: "good" | "exits" | "unhealthy"): Promise<string> {
  const health = kind === "unhealthy" ? ["CMD-SHELL", "echo down; exit 1"] : ["CMD-SHELL", "test -f /version"]
  const { Id } = await engine.createContainer({
    Image: "svc-test/busybox:latest",
    Cmd: ["sh", "-c", `echo ${crypto.randomUUID()} > /version`],
    ...(kind === "exits" ? {} : { Healthcheck: { Test: health, Interval: 1e9, Timeout: 2e9, Retries: 2 } }),
  })
  await engine.containerAction(Id, "start")
  await engine.waitContainer(Id)
  const cmd = kind === "exits" ? ["sh", "-c", "exit 3"] : ["sh", "-c", LOOP]
  const image = await engine.commitContainer(Id, repo, "v1", [`CMD ${JSON.stringify(cmd)}`])
  await engine.removeContainer(Id)
  await engine.pushImage(`${repo}:v1`)
  return image.Id
}

for (const flavour of benchFlavours()) {
  const eng = startEngine("upd", flavour)
  const engine = dockerEngine(eng.host)
  const registry = await startRegistry(eng.netns)
  const link = await veth(eng.netns)
  const tools = composeTools(flavour)
  const service = await startService(
    { DOCKER_HOST: eng.host, ...tools },
    { host: link.inside, cmd: ["ip", "netns", "exec", eng.netns, "bun", join(root, "server.ts")] },
  )
  try {
    const repo = `${registry.host}/bench/app`
    let running = await variant(engine, repo, "good")
    const post = async (path: string, body: unknown) => {
      const res = await fetch(`${service.url}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      })
      if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`)
      return (await res.json()) as any
    }
    await post("/api/stacks", {
      name: "bench",
      content: `services:\n  web:\n    image: ${repo}:v1\n    restart: "no"\n    stop_grace_period: 1s\n`,
    })
    const times: Record<string, number[]> = { exits: [], unhealthy: [], good: [] }
    for (let round = 0; round < ROUNDS; round++) {
      for (const kind of ["exits", "unhealthy", "good"] as const) {
        const id = await variant(engine, repo, kind)
        await engine.tagImage(running, repo, "v1") // the update's pull brings it
        const t0 = performance.now()
        const { update } = await post("/api/stacks/bench/update", { watch: WINDOW })
        times[kind]!.push((performance.now() - t0) / 1000)
        const expected = kind === "good" ? "updated" : "rolled_back"
        if (update.verdict !== expected) throw new Error(`${kind}: ${update.verdict} ${update.reason ?? ""}`)
        if (kind === "good") running = id
      }
    }
    console.log(
      `== ${flavour} engine, watch window ${WINDOW} s, ${ROUNDS} rounds (median seconds from request to verdict)`,
    )
    for (const [kind, xs] of Object.entries(times))
      console.log(
        `${kind.padEnd(10)} ${median(xs).toFixed(2)} s  -> ${(median(xs) / WINDOW).toFixed(3)} of the window; ${(median(xs) / median(times.good!)).toFixed(2)} x a good update`,
      )
  } finally {
    await service.stop()
    await link.remove()
    await registry.stop()
    eng.stop()
  }
}
