// The private engines that scripts/test.sh starts for the integration tests.
import { readFileSync } from "node:fs"
import { dockerEngine, type Engine } from "#lib/engine/client.ts"

/** Every resource a test creates carries this label; cleanup goes by it. */
export const TEST_LABEL = "hm.test"

export function engineHost(which: "a" | "b" = "a"): string {
  const host = process.env[which === "a" ? "TEST_DOCKER_HOST" : "TEST_DOCKER_HOST_B"]
  if (!host) throw new Error("integration tests need the private engines: run them with `bash scripts/test.sh`")
  return host
}

export function realEngine(which: "a" | "b" = "a"): Engine {
  return dockerEngine(engineHost(which))
}

/**
 * True inside a chroot: the mount this process sees at "/" is a folder of a filesystem (the
 * mountinfo "root" field of the last mount at "/" is not "/"), as when a test root was made with
 * debootstrap and entered with chroot.
 */
export function insideChroot(): boolean {
  const atRoot = readFileSync("/proc/self/mountinfo", "utf8")
    .split("\n")
    .map((l) => l.split(" "))
    .filter((f) => f[4] === "/")
  return (atRoot.at(-1)?.[3] ?? "/") !== "/"
}

export const testImage = () => process.env.TEST_IMAGE ?? "svc-test/busybox:latest"

/** Starts a labelled container running `script` in the test image. */
export async function runContainer(
  engine: Engine,
  name: string,
  script: string,
  extra: Record<string, unknown> = {},
): Promise<string> {
  const { Id } = await engine.createContainer(
    { Image: testImage(), Cmd: ["sh", "-c", script], Labels: { [TEST_LABEL]: "1" }, ...extra },
    name,
  )
  await engine.containerAction(Id, "start")
  return Id
}

/** Removes every container and volume a test labelled. */
export async function cleanup(engine: Engine): Promise<void> {
  const filters = { label: [TEST_LABEL] }
  for (const c of await engine.listContainers({ all: true, filters }))
    await engine.removeContainer(c.Id, { force: true }).catch(() => {})
  for (const v of await engine.listVolumes(filters)) await engine.removeVolume(v.Name, { force: true }).catch(() => {})
}
