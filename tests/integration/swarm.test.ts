// The swarm's engine calls and routes against the test swarm of scripts/swarm.sh, on both flavours.
import { describe, expect, test } from "bun:test"
import { swarmManagerHost } from "../support/swarm.ts"

describe("the test swarm", () => {
  test("the manager sees three ready nodes, each with its own hostname", async () => {
    const proc = Bun.spawn(["docker", "node", "ls", "--format", "{{.Hostname}} {{.Status}}"], { env: { ...process.env, DOCKER_HOST: swarmManagerHost() }, stdout: "pipe" })
    const out = await new Response(proc.stdout).text()
    expect(await proc.exited).toBe(0)
    expect(out.trim().split("\n").sort()).toEqual(["manager Ready", "worker1 Ready", "worker2 Ready"])
  })
})
