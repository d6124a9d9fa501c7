import { afterAll, expect, setDefaultTimeout, test } from "bun:test"
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { composeRunner, detectCompose, globalArgs } from "#lib/stacks/compose.ts"
import { ClearRooms } from "#lib/engine/clear-room.ts"
import { writeSealed } from "#lib/data/datadir.ts"
import { renderEnvFile, type EnvVar } from "#lib/stacks/env.ts"
import { EventBus } from "#lib/engine/events.ts"
import { Registries } from "#lib/registries/registries.ts"
import type { DomainError } from "#lib/errors/errors.ts"

// docker-compose v1 is a Python program: seconds to start on a loaded machine.
setDefaultTimeout(30_000)

const dir = mkdtempSync(join(tmpdir(), "hm-compose-"))
const toolEnv = { PATH: process.env.PATH! }
const rooms = new ClearRooms(join(dir, "clear"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

test("the plugin is chosen when `docker compose version` exits 0, else docker-compose", async () => {
  const asked: string[][] = []
  const plugin = await detectCompose(async (cmd) => (asked.push(cmd), 0), {})
  expect(asked).toEqual([["docker", "compose", "version"]])
  expect(plugin).toEqual({ cmd: ["docker", "compose"], flavour: "v2" })
  expect(await detectCompose(async () => 1, {})).toEqual({ cmd: ["docker-compose"], flavour: "v1" })
  expect(await detectCompose(async () => 127, {})).toEqual({ cmd: ["docker-compose"], flavour: "v1" })
})

// A compose plugin found only through DOCKER_CONFIG, as the docker CLI finds plugins: it answers the
// CLI's metadata call and records what it was run with.
test("a plugin found through DOCKER_CONFIG is detected and run with the same environment, and nothing else of the service's", async () => {
  const config = join(dir, "docker-config")
  mkdirSync(join(config, "cli-plugins"), { recursive: true })
  const record = join(dir, "plugin-calls")
  const plugin = join(config, "cli-plugins", "docker-compose")
  writeFileSync(
    plugin,
    `#!/bin/sh
[ "$1" = docker-cli-plugin-metadata ] && exec echo '{"SchemaVersion":"0.1.0","Vendor":"test","Version":"v2.99.0","ShortDescription":"stand-in"}'
echo "args=$* DOCKER_CONFIG=$DOCKER_CONFIG DOCKER_HOST=$DOCKER_HOST LEAK=$LEAK STACK=$STACK_VAR" >> ${record}
echo ran
`,
  )
  chmodSync(plugin, 0o755)
  const toolEnv = { PATH: process.env.PATH!, HOME: dir, DOCKER_CONFIG: config }
  process.env.LEAK = "service-only"
  const runner = composeRunner({ host: "unix:///nonexistent.sock", toolEnv, events: new EventBus(), rooms })
  expect(await runner.flavour()).toBe("v2")
  const res = await runner.run(
    { name: "demo", dir, env: [{ key: "STACK_VAR", value: "mine", secret: false }] },
    ["ps"],
    "ps",
  )
  delete process.env.LEAK
  expect(res).toEqual({ code: 0, output: "ran" })
  const env = `DOCKER_CONFIG=${config} DOCKER_HOST=unix:///nonexistent.sock LEAK=`
  const [version, ps] = readFileSync(record, "utf8").trim().split("\n")
  expect(version).toBe(`args=compose version ${env} STACK=`)
  // The env file is rendered into the run's room.
  expect(ps).toMatch(
    new RegExp(
      `^args=compose --ansi never -p demo -f ${dir}/compose.yaml --project-directory ${dir} --env-file ${dir}/clear/room-\\d+-[0-9a-f-]{36}/.env ps ${env} STACK=mine$`,
    ),
  )
})

// The same plugin stand-in, printing the DOCKER_CONFIG it was given and its config.json, failing as
// compose does when the registry refuses.
test("each call gets a DOCKER_CONFIG of its own: a pull's holds its images' kept credentials, others none; it goes afterwards", async () => {
  const config = join(dir, "service-docker-config")
  mkdirSync(join(config, "cli-plugins"), { recursive: true })
  writeFileSync(join(config, "config.json"), '{"auths":{"registry.lan":{"auth":"aG9zdDpyb290LXB3"}}}')
  const plugin = join(config, "cli-plugins", "docker-compose")
  writeFileSync(
    plugin,
    `#!/bin/sh
[ "$1" = docker-cli-plugin-metadata ] && exec echo '{"SchemaVersion":"0.1.0","Vendor":"test","Version":"v2.99.0","ShortDescription":"stand-in"}'
[ "$2" = version ] && exit 0
echo "config=$DOCKER_CONFIG"
tr -d '[:space:]' < "$DOCKER_CONFIG/config.json"; echo
[ -n "$FAIL" ] && { echo "Error response from daemon: Head \"https://registry.lan/v2/team/app/manifests/1\": unauthorized: authentication required" >&2; exit 1; }
exit 0
`,
  )
  chmodSync(plugin, 0o755)
  const data = join(dir, "data")
  const registries = new Registries(data, { dockerConfig: config })
  await registries.add({ name: "team", address: "registry.lan/team", username: "u", password: "team-pw" })
  await registries.add({ name: "other", address: "other.lan", username: "o", password: "other-pw" })
  const runner = composeRunner({
    host: "unix:///nonexistent.sock",
    toolEnv: { PATH: process.env.PATH!, HOME: dir, DOCKER_CONFIG: config },
    events: new EventBus(),
    rooms,
    credentials: (images) => registries.runConfig(images),
  })
  const file = join(dir, "run.json")
  writeFileSync(
    file,
    JSON.stringify({ services: { a: { image: "registry.lan/team/app:1" }, b: { image: "busybox" } } }),
  )
  const project = { name: "demo", dir, file, env: [] }
  const pulled = await runner.run(project, ["pull"], "pull")
  const [line, json] = pulled.output.split("\n")
  const own = line!.slice("config=".length)
  expect(own).toStartWith(join(data, "secrets", "docker", `${process.pid}-`))
  expect(JSON.parse(json!)).toEqual({
    auths: { "registry.lan": { auth: Buffer.from("u:team-pw").toString("base64") } },
  })
  expect(existsSync(own)).toBe(false)
  const down = await runner.run(project, ["down"], "down")
  expect(JSON.parse(down.output.split("\n")[1]!)).toEqual({ auths: {} })

  const failed = runner.run({ ...project, env: [{ key: "FAIL", value: "1", secret: false }] }, ["up", "-d"], "up")
  await expect(failed).rejects.toMatchObject({
    code: "registry_unauthorized",
    message: expect.stringMatching(/^registry registry\.lan refused the credentials/),
  })
  expect(existsSync(join(data, "secrets", "docker"))).toBe(false)

  // A registry whose host is one of the stack's secrets: the error names it redacted.
  writeFileSync(file, JSON.stringify({ services: { a: { image: "hidden-host.lan/app:1" } } }))
  const env = [
    { key: "FAIL", value: "1", secret: false },
    { key: "HOST", value: "hidden-host.lan", secret: true },
  ]
  const hidden = (await runner.run({ ...project, env }, ["up", "-d"], "up").catch((err) => err)) as DomainError
  expect(hidden.code).toBe("registry_unauthorized")
  expect(hidden.message).toStartWith("registry *** refused the credentials")
  expect(hidden.message).not.toContain("hidden-host.lan")
})

test("every call names the project, its file, its folder and its env file", () => {
  const args = globalArgs("web", "/room/run.json", "/data/stacks/web", "/room/.env")
  expect(args.join(" ")).toContain(
    "-p web -f /room/run.json --project-directory /data/stacks/web --env-file /room/.env",
  )
})

// A plugin stand-in that prints the files it was given and what the service's own mount namespace
// sees of its room meanwhile.
test("a sealed run file and the env file are read in the clear only in the run's room: no other process sees it, and it is gone after", async () => {
  const config = join(dir, "room-config")
  mkdirSync(join(config, "cli-plugins"), { recursive: true })
  const plugin = join(config, "cli-plugins", "docker-compose")
  const seen = join(dir, "room-seen")
  writeFileSync(
    plugin,
    `#!/bin/sh
[ "$1" = docker-cli-plugin-metadata ] && exec echo '{"SchemaVersion":"0.1.0","Vendor":"test","Version":"v2.99.0","ShortDescription":"stand-in"}'
[ "$2" = version ] && exit 0
while [ "$1" != -f ]; do shift; done; f=$2
while [ "$1" != --env-file ]; do shift; done; e=$2
cat "$f" "$e"; stat -c %a "$f" "$e"; echo done > ${seen}; sleep 1
`,
  )
  chmodSync(plugin, 0o755)
  const runFile = join(dir, "sealed-run.json")
  writeSealed(runFile, '{"services":{"app":{"image":"busybox"}}}\n')
  expect(readFileSync(runFile, "utf8")).not.toContain("busybox")
  const runner = composeRunner({
    host: "unix:///nonexistent.sock",
    toolEnv: { PATH: process.env.PATH!, HOME: dir, DOCKER_CONFIG: config },
    events: new EventBus(),
    rooms,
  })
  const env = [{ key: "DB_PASSWORD", value: "in-the-room-only", secret: false }]
  const run = runner.run({ name: "demo", dir, env, file: runFile }, ["up"], "up")
  for (let i = 0; i < 200 && !existsSync(seen); i++) await Bun.sleep(25)
  // While it runs, the service's own view of the clear root is empty: the room is another namespace's tmpfs.
  expect(readdirSync(rooms.root)).toEqual([])
  const res = await run
  expect(res.code).toBe(0)
  expect(res.output).toContain('{"services":{"app":{"image":"busybox"}}}')
  expect(res.output).toContain("DB_PASSWORD='in-the-room-only'")
  expect(res.output).toContain("600\n600")
  expect(readdirSync(rooms.root)).toEqual([])
  expect(await rooms.isPrivate()).toBe(true)
})

test("without mount namespaces the room is a folder of its own under the clear root, removed when the run ends", async () => {
  const folders = new ClearRooms(join(dir, "clear-folders"), false)
  writeFileSync(join(dir, "compose.yaml"), "services:\n  app:\n    image: busybox\n")
  const runner = composeRunner({
    host: "unix:///nonexistent.sock",
    toolEnv,
    events: new EventBus(),
    probe: async () => 1,
    rooms: folders,
  })
  const res = await runner.run(
    { name: "demo", dir, env: [{ key: "K", value: "v", secret: true }] },
    ["config", "-q"],
    "config",
  )
  expect(res.code).toBe(0)
  expect(await folders.isPrivate()).toBe(false)
  expect(readdirSync(folders.root)).toEqual([])
})

// A plugin stand-in that prints a multi-line secret as compose prints a value it refuses.
test("a multi-line secret in compose's output: the returned output hides it whole, each streamed line its lines of 8 characters or more", async () => {
  const config = join(dir, "printing-config")
  mkdirSync(join(config, "cli-plugins"), { recursive: true })
  const plugin = join(config, "cli-plugins", "docker-compose")
  writeFileSync(
    plugin,
    `#!/bin/sh
[ "$1" = docker-cli-plugin-metadata ] && exec echo '{"SchemaVersion":"0.1.0","Vendor":"test","Version":"v2.99.0","ShortDescription":"stand-in"}'
[ "$2" = version ] && exit 0
echo starting >&2
printf 'invalid value "%s"\\n' "$KEY" >&2
exit 1
`,
  )
  chmodSync(plugin, 0o755)
  writeFileSync(join(dir, ".env"), "")
  const key = "short\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nxyz="
  const events = new EventBus()
  const runner = composeRunner({
    host: "unix:///nonexistent.sock",
    toolEnv: { PATH: process.env.PATH!, HOME: dir, DOCKER_CONFIG: config },
    events,
    rooms,
  })
  const res = await runner.run({ name: "demo", dir, env: [{ key: "KEY", value: key, secret: true }] }, ["up"], "up")
  expect(res).toEqual({ code: 1, output: 'starting\ninvalid value "***"' })
  expect(events.history().map((e) => e.message)).toEqual(["starting", 'invalid value "short', "***", 'xyz="'])
})

// The real docker-compose (v1): `config` needs no engine.
const env: EnvVar[] = [
  { key: "IMAGE", value: "busybox", secret: false },
  { key: "PASSWORD", value: "pa55-w0rd-xyz", secret: true },
]

test("the real CLI's output is streamed into events with secret values redacted", async () => {
  writeFileSync(
    join(dir, "compose.yaml"),
    "services:\n  app:\n    image: ${IMAGE}\n    environment:\n      PASSWORD: ${PASSWORD}\n",
  )
  writeFileSync(join(dir, ".env"), "")
  const events = new EventBus()
  const runner = composeRunner({ host: "unix:///nonexistent.sock", toolEnv, events, probe: async () => 1, rooms })
  expect(await runner.flavour()).toBe("v1")
  const res = await runner.run({ name: "demo", dir, env }, ["config"], "config")
  expect(res.code).toBe(0)
  expect(res.output).toContain("image: busybox")
  expect(res.output).toContain("PASSWORD: ***")
  expect(res.output).not.toContain("pa55-w0rd-xyz")
  const history = events.history()
  expect(history.length).toBeGreaterThan(0)
  expect(history.every((e) => e.type === "stack" && e.action === "config.output" && e.name === "demo")).toBe(true)
  expect(JSON.stringify(history)).not.toContain("pa55-w0rd-xyz")
})

test("a refused compose file gives a non-zero exit and compose's message", async () => {
  writeFileSync(join(dir, "compose.yaml"), "services:\n  app:\n    image: busybox\n    servces: 1\n")
  const res = await composeRunner({
    host: "unix:///nonexistent.sock",
    toolEnv,
    events: new EventBus(),
    probe: async () => 1,
    rooms,
  }).run({ name: "demo", dir, env }, ["config", "-q"], "config")
  expect(res.code).not.toBe(0)
  expect(res.output).toContain("servces")
})

// python-dotenv (v1) expands \${VAR} in any value, quoted or not, with no escape: such values reach
// the compose file exactly only through the CLI's environment, which the runner always sets.
test("the rendered v1 env file reads back exactly through docker-compose", async () => {
  const values = [`it's`, `back\\slash`, `$HOME and $USER`, `"double"`, `#hash`, `two\nlines`, ` spaced `]
  const vars: EnvVar[] = values.map((value, i) => ({ key: `V${i}`, value, secret: false }))
  writeFileSync(join(dir, ".env"), renderEnvFile(vars, "v1"))
  writeFileSync(join(dir, "compose.yaml"), `services:\n  app:\n    image: busybox\n    env_file: .env\n`)
  const proc = Bun.spawn(
    ["docker-compose", "-p", "demo", "-f", join(dir, "compose.yaml"), "--project-directory", dir, "config"],
    {
      env: { PATH: process.env.PATH!, DOCKER_HOST: "unix:///nonexistent.sock" },
      stdout: "pipe",
      stderr: "pipe",
    },
  )
  const out = await new Response(proc.stdout).text()
  expect(await proc.exited).toBe(0)
  const { parse } = await import("yaml")
  const environment = parse(out).services.app.environment
  // `config` prints a literal $ as $$.
  values.forEach((value, i) => expect(environment[`V${i}`].replaceAll("$$", "$")).toBe(value))
})

/** A compose plugin that says it is waiting, writes its pid and its child's, and never ends. */
function hangingPlugin(name: string) {
  const config = join(dir, name)
  mkdirSync(join(config, "cli-plugins"), { recursive: true })
  const plugin = join(config, "cli-plugins", "docker-compose")
  const pids = join(dir, `${name}.pids`)
  writeFileSync(
    plugin,
    `#!/bin/sh
[ "$1" = docker-cli-plugin-metadata ] && exec echo '{"SchemaVersion":"0.1.0","Vendor":"test","Version":"v2.99.0","ShortDescription":"stand-in"}'
[ "$2" = version ] && exit 0
sleep 600 & echo $$ $! > ${pids}
echo "Container demo-web-1 Waiting $KEY" >&2
wait
`,
  )
  chmodSync(plugin, 0o755)
  const alive = (pid: number) => {
    try {
      return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"))
    } catch {
      return false
    }
  }
  const started = async () => {
    while (!existsSync(pids)) await Bun.sleep(50)
  }
  const running = () => readFileSync(pids, "utf8").trim().split(" ").map(Number).filter(alive)
  /** What still runs once the kernel has had a moment to deliver a signal sent to the group. */
  const left = async () => {
    for (let i = 0; i < 100 && running().length; i++) await Bun.sleep(20)
    return running()
  }
  return { toolEnv: { PATH: process.env.PATH!, HOME: dir, DOCKER_CONFIG: config }, started, running, left }
}

test("a compose call past its deadline is stopped with its processes: 504 compose_timeout with its output so far, secrets hidden", async () => {
  const { toolEnv, left } = hangingPlugin("hanging")
  writeFileSync(join(dir, ".env"), "")
  const runner = composeRunner({
    host: "unix:///nonexistent.sock",
    toolEnv,
    events: new EventBus(),
    timeouts: { run: 60, config: 1 },
    rooms,
  })
  const project = { name: "demo", dir, env: [{ key: "KEY", value: "pa55-w0rd-xyz", secret: true }] }
  const refused = (p: Promise<unknown>) =>
    p.then(
      () => undefined,
      (err: unknown) => err,
    )
  const up = await refused(runner.run(project, ["up", "-d"], "up", { timeout: 1 }))
  expect(up).toMatchObject({ kind: "timed_out", code: "compose_timeout" })
  expect((up as Error).message).toBe(
    "compose up -d did not finish within 1 s and was stopped; its output: Container demo-web-1 Waiting ***",
  )
  expect(await left()).toEqual([])
  const config = await refused(
    runner.config(project, {
      entries: [
        { path: "compose.yaml", content: "services: {}\n" },
        { path: ".env", content: "" },
      ],
    }),
  )
  expect(config).toMatchObject({ kind: "timed_out", code: "compose_timeout" })
  expect(await left()).toEqual([])
  expect(await refused(runner.merge([join(dir, "a.yaml"), join(dir, "b.yaml")], dir))).toMatchObject({
    kind: "timed_out",
    code: "compose_timeout",
  })
  expect(await left()).toEqual([])
})

test("a compose run whose caller gives up is stopped at once: canceled compose_aborted", async () => {
  const { toolEnv, started, running, left } = hangingPlugin("abandoned")
  const runner = composeRunner({ host: "unix:///nonexistent.sock", toolEnv, events: new EventBus(), rooms })
  const abort = new AbortController()
  const run = runner.run({ name: "demo", dir, env: [] }, ["up"], "up", { signal: abort.signal })
  await started()
  expect(running()).toHaveLength(2)
  abort.abort()
  expect(
    await run.then(
      () => undefined,
      (err: unknown) => err,
    ),
  ).toMatchObject({ kind: "canceled", code: "compose_aborted" })
  expect(await left()).toEqual([])
})
