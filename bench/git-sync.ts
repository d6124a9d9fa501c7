// bench/git-sync: from a signed push webhook to the sync's verdict, against a deploy of the same
// commit's compose file and files by hand (`POST /api/stacks` to a second stack, request to answer),
// both watched for the same window. A git smart-HTTP server on loopback wants a token; each round
// pushes a commit that changes a bound file, calls the webhook (202 at once) and polls
// `GET .../git` every 50 ms until the last sync names the commit. Prints the medians and their ratio.
// Run: bun bench/git-sync.ts [rounds, default 5]   (as root; BENCH_FLAVOURS picks engines)
import { createHmac } from "node:crypto"
import { startGitServer } from "../tests/support/git-server.ts"
import { startService } from "../tests/support/service.ts"
import { benchFlavours, composeTools, median, startEngine } from "./support.ts"

const ROUNDS = Number(process.argv[2] ?? 5)
const WATCH = 2
const TOKEN = "bench-token-1b2c3d"
const compose = `services:
  web:
    image: svc-test/busybox:latest
    command: ["sh", "-c", "trap 'exit 0' TERM; while :; do sleep 1; done"]
    volumes: ["./conf/app.conf:/app.conf:ro"]
`

for (const flavour of benchFlavours()) {
  const eng = startEngine("git", flavour)
  const tools = composeTools(flavour)
  const git = startGitServer({ token: TOKEN })
  const service = await startService({ DOCKER_HOST: eng.host, SVC_UPDATE_WATCH: String(WATCH), ...tools })
  const call = async (
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = { "content-type": "application/json" },
  ) => {
    const res = await fetch(`${service.url}/api${path}`, {
      method,
      headers,
      body: typeof body === "string" ? body : JSON.stringify(body),
    })
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`)
    return (await res.json()) as any
  }
  try {
    const repo = await git.repo("bench")
    await repo.commit({ "compose.yaml": compose, "conf/app.conf": "0" })
    const { webhook_secret: secret } = await call("PUT", "/stacks/bench-git/git", { url: repo.url, token: TOKEN })
    await call("POST", "/stacks", { name: "bench-hand", content: compose, files: { "conf/app.conf": "0" } })
    const hook: number[] = []
    const hand: number[] = []
    for (let round = 1; round <= ROUNDS; round++) {
      const commit = await repo.commit({ "conf/app.conf": String(round) })
      const payload = JSON.stringify({ ref: "refs/heads/main", after: commit })
      const t0 = performance.now()
      await call("POST", "/stacks/bench-git/git/webhook", payload, {
        "content-type": "application/json",
        "X-Hub-Signature-256": `sha256=${createHmac("sha256", secret).update(payload).digest("hex")}`,
      })
      for (;;) {
        const { last_sync } = await call("GET", "/stacks/bench-git/git")
        if (last_sync?.commit === commit) {
          if (last_sync.verdict !== "applied")
            throw new Error(`round ${round}: ${last_sync.verdict} ${last_sync.error}`)
          break
        }
        await Bun.sleep(50)
      }
      hook.push((performance.now() - t0) / 1000)
      const t1 = performance.now()
      await call("POST", "/stacks", {
        name: "bench-hand",
        content: compose,
        files: { "conf/app.conf": String(round) },
        watch: WATCH,
      })
      hand.push((performance.now() - t1) / 1000)
    }
    console.log(`== ${flavour} engine, ${ROUNDS} rounds, watch ${WATCH} s (median seconds)`)
    console.log(`webhook to verdict  ${median(hook).toFixed(2)} s`)
    console.log(`deploy by hand      ${median(hand).toFixed(2)} s`)
    console.log(`ratio               ${(median(hook) / median(hand)).toFixed(2)}`)
    for (const name of ["bench-git", "bench-hand"])
      await fetch(`${service.url}/api/stacks/${name}`, { method: "DELETE" })
  } finally {
    await service.stop()
    git.stop()
    eng.stop()
  }
}
