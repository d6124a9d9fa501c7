// The real compose CLI of the flavour under test (TEST_COMPOSE: v1 `docker-compose`, v2 `docker
// compose`), run by hand against the private engine, as a person brings a project up outside the service.
import { engineHost } from "./engine.ts"

export function composeByHand(dir: string, project: string, ...args: string[]): void {
  const cli = process.env.TEST_COMPOSE === "v2" ? ["docker", "compose"] : ["docker-compose"]
  const run = Bun.spawnSync([...cli, "-p", project, ...args], {
    cwd: dir,
    env: { ...process.env, DOCKER_HOST: engineHost() },
    stderr: "pipe",
  })
  if (run.exitCode !== 0) throw new Error(`compose ${args.join(" ")}: ${run.stderr.toString()}`)
}
