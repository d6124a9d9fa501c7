// A fake compose CLI for handler tests: it records each call and acts on the fake engine the way
// compose would (up creates one labelled container per service, down removes them).
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { parse } from "yaml"
import type { ComposeProject, ComposeResult, ComposeRunner } from "../../lib/compose.ts"
import { SERVICE_LABEL, STACK_LABEL } from "../../lib/containers.ts"
import { FakeEngine } from "../../lib/engine-fake.ts"
import { testApp, type TestApp } from "./app.ts"

export class FakeCompose implements ComposeRunner {
  calls: { project: string; args: string[]; env: Record<string, string>; compose: string }[] = []
  /** Subcommand ("config", "up", "pull", ...) → output of a failure. */
  failures = new Map<string, string>()
  /** Resolves when a test lets an `up` finish; for ordering tests. */
  gate: Promise<void> | undefined

  constructor(private engine: FakeEngine) {}

  async flavour() {
    return "v1" as const
  }

  async run(project: ComposeProject, args: string[]): Promise<ComposeResult> {
    const compose = readFileSync(join(project.dir, "compose.yaml"), "utf8")
    this.calls.push({ project: project.name, args, env: Object.fromEntries(project.env.map((e) => [e.key, e.value])), compose })
    const sub = args[0]!
    if (sub === "up") await this.gate
    const failure = this.failures.get(sub)
    if (failure) return { code: 1, output: failure }
    const mine = () => [...this.engine.containers.values()].filter((c) => c.labels[STACK_LABEL] === project.name)
    if (sub === "up" || sub === "down") for (const c of mine()) this.engine.containers.delete(c.id)
    if (sub === "up")
      for (const service of Object.keys(parse(compose).services ?? {}))
        this.engine.addContainer({
          name: `${project.name}_${service}_1`,
          labels: { [STACK_LABEL]: project.name, [SERVICE_LABEL]: service },
          env: project.env.map((e) => `${e.key}=${e.value}`),
          logs: [{ stream: "stdout", ts: "2026-01-01T00:00:00.000000000Z", line: `hello from ${service}` }],
        })
    return { code: 0, output: `${sub} done` }
  }
}

/** testApp with the fake engine and a fake compose CLI. */
export async function stackApp(): Promise<TestApp & { compose: FakeCompose }> {
  const engine = new FakeEngine()
  const compose = new FakeCompose(engine)
  return { ...(await testApp({ engine, compose })), engine, compose }
}

export const twoServices = `services:
  web:
    image: busybox
    environment:
      TOKEN: \${TOKEN}
  db:
    image: busybox
`
