// bench/swarm-deploy: how long a swarm stack's deploy through the API takes until every task runs,
// against doing it by hand in the same run: `docker stack deploy` of the same file, then polling
// `docker service ls` until every service has all its replicas running. A swarm of three private
// engines (scripts/swarm.sh: a manager, two workers, the registry they pull from); three services of
// two replicas each, spread over the nodes. The API's answer comes once the tasks run (the deploy
// waits for them), so its time is the request's. Both are removed and gone between rounds. Prints
// the medians and their ratio (target: at most 1.2).
// Run: bun bench/swarm-deploy.ts [rounds, default 5]   (as root; BENCH_FLAVOURS picks engines)
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { dockerEngine } from "#lib/engine/client.ts"
import { findDockerCli } from "#lib/stacks/stack-cli.ts"
import { SWARM_STACK_LABEL } from "#lib/stacks/swarm.ts"
import { benchFlavours, median, ratio, root, startService } from "./support.ts"

const ROUNDS = Number(process.argv[2] ?? 5)

const composeFile = (image: string) =>
  ["a", "b", "c"]
    .map(
      (s) =>
        `  ${s}:\n    image: ${image}\n    command: ["sh", "-c", "trap 'exit 0' TERM; while :; do sleep 1; done"]\n    stop_grace_period: 1s\n    deploy:\n      endpoint_mode: dnsrr\n      replicas: 2\n`,
    )
    .join("")
    .replace(/^/, "services:\n")

for (const flavour of benchFlavours()) {
  const dir = mkdtempSync(join(tmpdir(), "hm-bench-swarm-"))
  const started = Bun.spawnSync(["bash", join(root, "scripts/swarm.sh"), "start", join(dir, "swarm"), flavour], {
    stderr: "inherit",
  })
  if (started.exitCode !== 0) throw new Error("the test swarm did not start")
  const vars = Object.fromEntries(
    started.stdout
      .toString()
      .trim()
      .split("\n")
      .map((l) => l.split("=", 2) as [string, string]),
  )
  const host = vars.TEST_SWARM_MANAGER!
  const manager = dockerEngine(host)
  const cli = await findDockerCli(process.env.SVC_DOCKER_CLI, { PATH: process.env.PATH ?? "" })
  const service = await startService({ DOCKER_HOST: host })
  const content = composeFile(`${vars.TEST_SWARM_REGISTRY}/svc-test/busybox:latest`)
  const file = join(dir, "compose.yaml")
  writeFileSync(file, content)
  const docker = (...args: string[]) => {
    const run = Bun.spawnSync([cli, ...args], { env: { ...process.env, DOCKER_HOST: host }, stderr: "pipe" })
    if (run.exitCode !== 0) throw new Error(`docker ${args.join(" ")}: ${run.stderr.toString()}`)
    return run.stdout.toString()
  }
  const left = async (name: string) =>
    (await manager.listServices({ label: [`${SWARM_STACK_LABEL}=${name}`] })).length > 0 ||
    (await manager.listNetworks()).some((n) => n.Labels?.[SWARM_STACK_LABEL] === name)
  /** `stack rm` until nothing of the stack is left (it refuses a network a task's container still holds). */
  const removeByHand = async (name: string) => {
    do {
      Bun.spawnSync([cli, "stack", "rm", name], { env: { ...process.env, DOCKER_HOST: host } })
      await Bun.sleep(1000)
    } while (await left(name))
  }
  try {
    const api: number[] = []
    const byHand: number[] = []
    for (let round = 0; round <= ROUNDS; round++) {
      // Round 0 warms both up (every node pulls the image once); it is not counted.
      let t = performance.now()
      const res = await fetch(`${service.url}/api/stacks`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: "bench-api", content, orchestrator: "swarm" }),
      })
      if (res.status !== 201) throw new Error(`deploy: ${res.status} ${await res.text()}`)
      if (round) api.push(performance.now() - t)
      const removed = await fetch(`${service.url}/api/stacks/bench-api`, { method: "DELETE" })
      if (!removed.ok) throw new Error(`delete: ${removed.status} ${await removed.text()}`)

      t = performance.now()
      docker("stack", "deploy", "-c", file, "--resolve-image", "changed", "bench-hand")
      for (;;) {
        const replicas = docker(
          "service",
          "ls",
          "--filter",
          `label=${SWARM_STACK_LABEL}=bench-hand`,
          "--format",
          "{{.Replicas}}",
        )
          .trim()
          .split("\n")
          .filter(Boolean)
        if (replicas.length === 3 && replicas.every((r) => /^(\d+)\/\1\b/.test(r))) break
        await Bun.sleep(100)
      }
      if (round) byHand.push(performance.now() - t)
      await removeByHand("bench-hand")
    }
    console.log(
      `${flavour}: ${ROUNDS} rounds, 3 services x 2 replicas on 3 nodes; API ${api.map((x) => x.toFixed(0)).join(", ")} ms; by hand ${byHand.map((x) => x.toFixed(0)).join(", ")} ms`,
    )
    ratio(
      `${flavour}: deploy until every task runs (API vs stack deploy + polling service ls)`,
      median(api),
      median(byHand),
      " ms",
    )
  } finally {
    await service.stop()
    Bun.spawnSync(["bash", join(root, "scripts/swarm.sh"), "stop", join(dir, "swarm")])
    rmSync(dir, { recursive: true, force: true })
  }
}
