// A fake compose CLI for handler tests: it records each call and acts on the fake engine the way
// compose would (up creates one labelled container per service, down removes them).
import { isAbsolute, join } from "node:path"
import { parse, stringify } from "yaml"
import type {
  ComposeCandidate,
  ComposeConfigResult,
  ComposeProject,
  ComposeResult,
  ComposeRunner,
  RunOptions,
} from "#lib/stacks/compose.ts"
import { readOpened } from "#lib/data/sealed.ts"
import { SERVICE_LABEL, STACK_LABEL } from "#lib/engine/containers.ts"
import { interpolate } from "#lib/stacks/interpolate.ts"
import { FakeEngine } from "./fake-engine.ts"
import { testApp, type TestApp } from "./app.ts"

export class FakeCompose implements ComposeRunner {
  calls: { project: string; args: string[]; env: Record<string, string>; compose: string }[] = []
  /** The `config` calls (compose's model of a candidate, asked before anything is written), apart from the rest. */
  configCalls: {
    project: string
    dir: string
    env: Record<string, string>
    compose: string
    files: Record<string, string>
  }[] = []
  /** Subcommand ("config", "up", "pull", ...) → output of a failure. */
  failures = new Map<string, string>()
  /** Resolves when a test lets an `up` finish; for ordering tests. */
  gate: Promise<void> | undefined

  readonly env = { HOME: "/root" }

  constructor(private engine: FakeEngine) {}

  async flavour() {
    return "v1" as const
  }

  async run(project: ComposeProject, args: string[], _action?: string, opts: RunOptions = {}): Promise<ComposeResult> {
    // The file compose runs: a stack's checked model (JSON, which is YAML, kept sealed), or a laid-out compose.yaml.
    const compose =
      opts.layout?.find((e) => e.path === "compose.yaml")?.content ??
      readOpened(project.file ?? join(project.dir, "compose.yaml"))!
    this.calls.push({
      project: project.name,
      args,
      env: Object.fromEntries(project.env.map((e) => [e.key, e.value])),
      compose,
    })
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

  /** As v1 (the fake's flavour): no merge of several files. */
  async merge(): Promise<string | undefined> {
    return undefined
  }

  /**
   * A stand-in for `docker-compose config` (v1 prints YAML): the file with merge keys applied, every
   * string interpolated with the stack's environment, relative bind sources made absolute against the
   * project folder. Nothing else is resolved: tests of the host-path guard run the real CLI
   * (tests/handlers/bad-input.test.ts).
   */
  async config(project: ComposeProject, candidate: ComposeCandidate): Promise<ComposeConfigResult> {
    const dir = `/fake-room/${crypto.randomUUID()}`
    const compose = candidate.entries.find((e) => e.path === "compose.yaml")!.content!
    // The stack's other files as the candidate lays them out (links to the stack's data left out).
    const files = Object.fromEntries(
      candidate.entries
        .filter((e) => e.link === undefined && e.path !== "compose.yaml" && e.path !== ".env")
        .map((e) => [e.path, e.content!]),
    )
    this.configCalls.push({
      project: project.name,
      dir,
      env: Object.fromEntries(project.env.map((e) => [e.key, e.value])),
      compose,
      files,
    })
    const failure = this.failures.get("config")
    if (failure) return { flavour: "v1", format: "yaml", code: 1, output: failure, stdout: "", dir }
    const env = Object.fromEntries(project.env.map((e) => [e.key, e.value]))
    const resolve = (v: unknown): any =>
      typeof v === "string"
        ? interpolate(v, env)
        : Array.isArray(v)
          ? v.map(resolve)
          : v && typeof v === "object"
            ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, resolve(x)]))
            : v
    const doc = resolve(parse(compose, { merge: true }) ?? {})
    const absolute = (p: string) => (isAbsolute(p) ? p : join(dir, p))
    for (const s of Object.values<any>(doc.services ?? {}))
      if (Array.isArray(s?.volumes))
        s.volumes = s.volumes.map((v: any) => {
          if (typeof v !== "string") return v?.type === "bind" ? { ...v, source: absolute(v.source) } : v
          const [source, ...rest] = v.split(":")
          return rest.length && /^[./]/.test(source) ? [absolute(source), ...rest].join(":") : v
        })
    return { flavour: "v1", format: "yaml", code: 0, output: "", stdout: stringify(doc), dir }
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
