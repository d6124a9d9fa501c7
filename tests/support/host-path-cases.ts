// Compose files that reach a host path outside their stack's folder, by every route compose offers,
// and the real compose CLIs (v1 and v2) to try them against. Shared by the handler table
// (tests/handlers/bad-input.test.ts, no engine) and the end-to-end check on a real engine
// (tests/integration/host-paths.test.ts).
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs"
import { join, relative } from "node:path"
import { composeRunner, type ComposeFlavour, type ComposeRunner } from "#lib/stacks/compose.ts"
import { EventBus } from "#lib/engine/events.ts"
import { testRooms } from "./rooms.ts"

export interface CaseDirs {
  /** The stack's folder (not created unless a case's setup does). */
  stackDir: string
  /** A folder outside the stack folder and outside SVC_BIND_ROOTS, holding files to reach for. */
  outside: string
  /** A folder listed in SVC_BIND_ROOTS. */
  root: string
}

export interface HostPathCase {
  name: string
  compose: (d: CaseDirs, image: string) => string
  env?: { key: string; value: string }[]
  /** Lays files down before the deploy (inside the stack folder or outside it). */
  setup?: (d: CaseDirs) => void
  /** The error code per flavour where it is not host_path_refused, and why. */
  other?: Partial<Record<ComposeFlavour, { code: string; why: string }>>
}

const svc = (image: string, body: string) => `services:\n  app:\n    image: ${image}\n${body}`
const write = (path: string, text: string) => {
  mkdirSync(join(path, ".."), { recursive: true })
  writeFileSync(path, text)
}

/** Files every case may reach for, written once into the outside folder. */
export function layOutside(outside: string): void {
  write(join(outside, "base.yaml"), `services:\n  base:\n    image: busybox\n    volumes: ["/etc:/host-etc"]\n`)
  write(
    join(outside, "plain.yaml"),
    `services:\n  base:\n    image: busybox\n    environment: {STOLEN: "from another file"}\n`,
  )
  write(join(outside, "secret.env"), "STOLEN=outside\n")
  write(join(outside, "secret.txt"), "outside\n")
}

export const HOST_PATH_CASES: HostPathCase[] = [
  {
    name: "merge key << bringing in a bind of / (issue 15)",
    compose: (_d, image) =>
      `x-host: &hostroot\n  volumes:\n    - /:/host\nservices:\n  app:\n    image: ${image}\n    <<: *hostroot\n`,
  },
  {
    name: "anchor and alias for the volume list",
    compose: (_d, image) => `x-v: &v ["/etc:/x"]\n${svc(image, "    volumes: *v\n")}`,
  },
  {
    name: "merge key inside a long-syntax mount",
    compose: (_d, image) =>
      `x-m: &m {type: bind, source: /etc, target: /x}\n${svc(image, "    volumes:\n      - <<: *m\n")}`,
  },
  { name: "short syntax /", compose: (_d, image) => svc(image, `    volumes: ["/:/host"]\n`) },
  {
    name: "long syntax bind of the engine socket",
    compose: (_d, image) => svc(image, `    volumes: [{type: bind, source: /var/run/docker.sock, target: /s}]\n`),
  },
  {
    name: "long syntax relative ../..",
    compose: (_d, image) => svc(image, `    volumes: [{type: bind, source: ../.., target: /up}]\n`),
  },
  { name: "../.. in short syntax", compose: (_d, image) => svc(image, `    volumes: ["../..:/up"]\n`) },
  { name: "~", compose: (_d, image) => svc(image, `    volumes: ["~/.ssh:/k"]\n`) },
  { name: "default ${VAR:-/etc}", compose: (_d, image) => svc(image, `    volumes: ["\${NOPE:-/etc}:/x"]\n`) },
  {
    name: "nested default ${A:-${B:-/etc}}",
    compose: (_d, image) => svc(image, `    volumes: ["\${A:-\${B:-/etc}}:/x"]\n`),
    other: {
      v1: {
        code: "invalid_compose",
        why: "v1 does not nest defaults: it reads a volume named ${B:-/etc and refuses the file",
      },
    },
  },
  {
    name: "a variable of the stack leading out",
    compose: (_d, image) => svc(image, `    volumes: ["./\${UP}/x:/up"]\n`),
    env: [{ key: "UP", value: "../../.." }],
  },
  {
    name: "a variable of the server's environment (${HOME})",
    compose: (_d, image) => svc(image, `    volumes: ["\${HOME}/.ssh:/k"]\n`),
  },
  {
    name: "extends from a file outside that binds /etc",
    compose: (d, image) => svc(image, `    extends: {file: ${d.outside}/base.yaml, service: base}\n`),
  },
  {
    name: "extends from a file outside without any host path",
    compose: (d, image) => svc(image, `    extends: {file: ${d.outside}/plain.yaml, service: base}\n`),
  },
  {
    name: "extends, relative path leading out",
    compose: (d, image) =>
      svc(image, `    extends: {file: ${relative(d.stackDir, d.outside)}/plain.yaml, service: base}\n`),
  },
  {
    name: "extends, file named by a default",
    compose: (d, image) => svc(image, `    extends: {file: "\${NOPE:-${d.outside}/plain.yaml}", service: base}\n`),
  },
  {
    name: "extends from a file inside the stack folder that binds /",
    setup: (d) =>
      write(join(d.stackDir, "base.yaml"), `services:\n  base:\n    image: busybox\n    volumes: ["/:/host"]\n`),
    compose: (_d, image) => svc(image, `    extends: {file: ./base.yaml, service: base}\n`),
  },
  {
    name: "extends from a file inside the stack folder with an env_file outside",
    setup: (d) =>
      write(join(d.stackDir, "base.yaml"), `services:\n  base:\n    image: busybox\n    env_file: /etc/passwd\n`),
    compose: (_d, image) => svc(image, `    extends: {file: ./base.yaml, service: base}\n`),
  },
  {
    name: "include of a file outside",
    compose: (d, image) => `include:\n  - ${d.outside}/plain.yaml\n${svc(image, "")}`,
  },
  {
    name: "include (long syntax) with an env_file outside",
    compose: (d, image) => `include:\n  - path: ./inc.yaml\n    env_file: ${d.outside}/secret.env\n${svc(image, "")}`,
  },
  {
    // Refused before compose reads it: a file in the stack's folder that is not one of its files is
    // data its containers can change between the check and the read.
    name: "include of a file lying in the stack folder (its data) that binds /etc",
    setup: (d) =>
      write(join(d.stackDir, "inc.yaml"), `services:\n  inc:\n    image: busybox\n    volumes: ["/etc:/x"]\n`),
    compose: (_d, image) => `include:\n  - ./inc.yaml\n${svc(image, "")}`,
  },
  {
    name: "local volume bound to / (driver_opts device)",
    compose: (_d, image) =>
      svc(image, `    volumes: ["dv:/d"]\nvolumes:\n  dv: {driver_opts: {type: none, o: bind, device: /}}\n`),
  },
  {
    name: "local volume bound to a relative ../..",
    compose: (_d, image) =>
      svc(image, `    volumes: ["dv:/d"]\nvolumes:\n  dv: {driver_opts: {type: none, o: bind, device: ../..}}\n`),
  },
  {
    name: "local volume on a host block device",
    compose: (_d, image) =>
      svc(image, `    volumes: ["dv:/d"]\nvolumes:\n  dv: {driver_opts: {type: ext4, device: /dev/sda1}}\n`),
  },
  { name: "env_file /etc/passwd", compose: (_d, image) => svc(image, `    env_file: /etc/passwd\n`) },
  {
    name: "env_file (long syntax)",
    compose: (d, image) => svc(image, `    env_file: [{path: ${d.outside}/secret.env}]\n`),
  },
  {
    name: "env_file through a merge key",
    compose: (d, image) => `x-e: &e\n  env_file: ${d.outside}/secret.env\n${svc(image, "    <<: *e\n")}`,
  },
  {
    name: "env_file through a default",
    compose: (d, image) => svc(image, `    env_file: "\${NOPE:-${d.outside}/secret.env}"\n`),
  },
  {
    name: "secrets file",
    compose: (_d, image) => svc(image, `    secrets: [s]\nsecrets:\n  s: {file: /etc/shadow}\n`),
  },
  {
    name: "configs file",
    compose: (d, image) => svc(image, `    configs: [c]\nconfigs:\n  c: {file: ${d.outside}/secret.txt}\n`),
  },
  { name: "build context /", compose: (_d, image) => svc(image, `    build: /\n`) },
  { name: "build context ../..", compose: (_d, image) => svc(image, `    build: {context: ../..}\n`) },
  {
    name: "Dockerfile outside the context",
    compose: (d, image) => svc(image, `    build: {context: ${d.root}, dockerfile: ${d.outside}/secret.txt}\n`),
  },
  {
    name: "build additional_contexts",
    compose: (d, image) => svc(image, `    build: {context: ${d.root}, additional_contexts: {x: /etc}}\n`),
    other: { v1: { code: "invalid_compose", why: "v1 has no additional_contexts: compose's own 400" } },
  },
  {
    name: "a service behind a profile",
    compose: (_d, image) =>
      `${svc(image, "")}  hidden:\n    image: ${image}\n    profiles: [never]\n    volumes: ["/:/host"]\n`,
  },
  {
    name: "a symlink in the stack folder leading out",
    setup: (d) => {
      mkdirSync(d.stackDir, { recursive: true })
      if (!existsSync(join(d.stackDir, "link"))) symlinkSync("/etc", join(d.stackDir, "link"))
    },
    compose: (_d, image) => svc(image, `    volumes: ["./link:/x"]\n`),
  },
  {
    name: "an env_file through a symlink in the stack folder",
    setup: (d) => {
      mkdirSync(d.stackDir, { recursive: true })
      if (!existsSync(join(d.stackDir, "link"))) symlinkSync(d.outside, join(d.stackDir, "link"))
    },
    compose: (_d, image) => svc(image, `    env_file: ./link/secret.env\n`),
  },
]

export const expectedCode = (c: HostPathCase, flavour: ComposeFlavour) =>
  c.other?.[flavour]?.code ?? "host_path_refused"

/** Where the v2 plugin lies: TEST_COMPOSE_PLUGIN_DIR (a DOCKER_CONFIG folder), else the repository's .engines/current. */
export function pluginDir(): string | undefined {
  const dir = process.env.TEST_COMPOSE_PLUGIN_DIR ?? join(import.meta.dir, "../../.engines/current")
  return existsSync(join(dir, "cli-plugins", "docker-compose")) ? dir : undefined
}

/**
 * A real compose runner of one flavour: v1 is `docker-compose` (the probe for the plugin answers no);
 * v2 the plugin found by the docker CLI through DOCKER_CONFIG. Undefined (with the reason) when that
 * CLI is not on this machine.
 */
export function realRunner(
  flavour: ComposeFlavour,
  host = "unix:///nonexistent/docker.sock",
): { runner?: ComposeRunner; missing?: string } {
  const PATH = process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin"
  const HOME = process.env.HOME ?? "/root"
  if (flavour === "v1") {
    if (!Bun.which("docker-compose", { PATH })) return { missing: "docker-compose (v1) is not on PATH" }
    return {
      runner: composeRunner({
        host,
        toolEnv: { PATH, HOME },
        events: new EventBus(),
        probe: async () => 1,
        rooms: testRooms(),
      }),
    }
  }
  const dir = pluginDir()
  if (!dir)
    return {
      missing:
        "no compose v2 plugin: TEST_COMPOSE_PLUGIN_DIR is unset and .engines/current/cli-plugins/docker-compose is missing",
    }
  if (!Bun.which("docker", { PATH })) return { missing: "no docker CLI on PATH to run the v2 plugin" }
  return {
    runner: composeRunner({
      host,
      toolEnv: { PATH, HOME, DOCKER_CONFIG: dir },
      events: new EventBus(),
      rooms: testRooms(),
    }),
  }
}
