import { afterAll, expect, test } from "bun:test"
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { findDockerCli, stackCli } from "#lib/stacks/stack-cli.ts"
import { EventBus } from "#lib/engine/events.ts"
import { DomainError } from "#lib/errors/errors.ts"
import { testRooms } from "../../support/rooms.ts"

const dir = mkdtempSync(join(tmpdir(), "hm-stack-cli-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** A stand-in docker CLI: answers `stack config --help` as a CLI with (or without) `stack config`, and records its other calls. */
function standIn(name: string, hasConfig: boolean): string {
  const path = join(dir, name)
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(
    path,
    `#!/bin/sh
if [ "$3" = --help ]; then echo "${hasConfig ? "Usage:  docker stack config [OPTIONS]" : "Usage:  docker stack [OPTIONS] COMMAND"}"; exit 0; fi
echo "args=$* DOCKER_HOST=$DOCKER_HOST TOKEN=$TOKEN LEAK=$LEAK" >> ${path}.calls
echo "deploying with $TOKEN"
`,
  )
  chmodSync(path, 0o755)
  return path
}

test("the CLI is SVC_DOCKER_CLI when set, else the first of PATH's docker and the bundled one that has `stack config`", async () => {
  const old = standIn("old/docker", false)
  const bundled = standIn("bundled", true)
  expect(await findDockerCli("/opt/docker", { PATH: join(dir, "old") })).toBe("/opt/docker")
  expect(await findDockerCli(undefined, { PATH: join(dir, "old") }, undefined, bundled)).toBe(bundled)
  const onPath = standIn("new/docker", true)
  expect(await findDockerCli(undefined, { PATH: join(dir, "new") }, undefined, bundled)).toBe(onPath)
  const err = await findDockerCli(undefined, { PATH: join(dir, "old") }, undefined, old).catch((e) => e)
  expect(err).toBeInstanceOf(DomainError)
  expect(err.code).toBe("stack_cli_missing")
})

test("a run gets the stack's environment as its process environment under the runner's own, and its output redacted", async () => {
  const cli = standIn("runner", true)
  const events = new EventBus()
  process.env.LEAK = "service-only"
  const runner = stackCli({
    host: "unix:///run/m.sock",
    toolEnv: { PATH: "/usr/bin:/bin" },
    events,
    cli,
    timeouts: { run: 30, config: 30 },
    rooms: testRooms(),
  })
  const env = [
    { key: "TOKEN", value: "t0p-s3cret", secret: true },
    { key: "DOCKER_HOST", value: "tcp://elsewhere:1", secret: false },
  ]
  const result = await runner.run({ name: "web", dir, env }, ["deploy", "-c", "run.json", "web"], "up")
  delete process.env.LEAK
  expect(result).toEqual({ code: 0, output: "deploying with ***" })
  expect(readFileSync(`${cli}.calls`, "utf8")).toBe(
    "args=stack deploy -c run.json web DOCKER_HOST=unix:///run/m.sock TOKEN=t0p-s3cret LEAK=\n",
  )
  const seen = events.history()
  expect(JSON.stringify(seen)).not.toContain("t0p-s3cret")
  expect(seen.some((e) => e.action === "up.output" && e.message === "deploying with ***")).toBe(true)
})

test("a run past its deadline is stopped: 504 compose_timeout", async () => {
  const cli = join(dir, "slow")
  writeFileSync(cli, `#!/bin/sh\n[ "$3" = --help ] && { echo "docker stack config"; exit 0; }\nsleep 30\n`)
  chmodSync(cli, 0o755)
  const runner = stackCli({
    host: "unix:///x",
    toolEnv: { PATH: "/usr/bin:/bin" },
    events: new EventBus(),
    cli,
    timeouts: { run: 1, config: 1 },
    rooms: testRooms(),
  })
  const err = await runner.run({ name: "web", dir, env: [] }, ["deploy"], "up").catch((e) => e)
  expect(err).toBeInstanceOf(DomainError)
  expect([err.kind, err.code]).toEqual(["timed_out", "compose_timeout"])
})
