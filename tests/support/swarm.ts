// The swarm of three private engines that scripts/swarm.sh starts for each flavour (one manager, two
// workers, a registry all of them reach).
import { dockerEngine, type Engine } from "#lib/engine/client.ts"
import type { ServiceSpec } from "#lib/engine/swarm.ts"

function env(name: string): string {
  const value = process.env[name]
  if (!value) throw new Error("integration tests need the test swarm: run them with `bash scripts/test.sh`")
  return value
}

export const swarmManagerHost = () => env("TEST_SWARM_MANAGER")
export const swarmWorkerHosts = () => env("TEST_SWARM_WORKERS").split(",")
export const swarmManager = (): Engine => dockerEngine(swarmManagerHost())
/** The test image as every node of the swarm pulls it from the swarm's registry. */
export const swarmImage = () => `${env("TEST_SWARM_REGISTRY")}/svc-test/busybox:latest`

/** Runs scripts/swarm.sh `cmd` on the test swarm (node-stop N, node-start N). */
export async function swarmScript(...args: string[]): Promise<void> {
  const proc = Bun.spawn(
    ["bash", `${import.meta.dir}/../../scripts/swarm.sh`, args[0]!, env("TEST_SWARM_DIR"), ...args.slice(1)],
    { stdout: "pipe", stderr: "pipe" },
  )
  if ((await proc.exited) !== 0)
    throw new Error(`swarm.sh ${args.join(" ")}: ${await new Response(proc.stderr).text()}`)
}

/** Waits until `probe` answers something truthy (errors count as not yet), up to `seconds`; answers it. */
export async function until<T>(
  probe: () => Promise<T>,
  seconds = 60,
): Promise<Exclude<T, false | null | undefined | 0 | "">> {
  const end = Date.now() + seconds * 1000
  let last: unknown
  while (Date.now() < end) {
    try {
      const value = await probe()
      if (value) return value as Exclude<T, false | null | undefined | 0 | "">
    } catch (err) {
      last = err
    }
    await Bun.sleep(250)
  }
  throw new Error(`the condition did not hold within ${seconds} s${last ? `: ${last}` : ""}`)
}

/** A replicated service of the test image on the test swarm: DNS round robin (no IPVS here), a 1 s stop grace. */
export function serviceSpec(name: string, replicas: number, script = "sleep 3600"): ServiceSpec {
  return {
    Name: name,
    Labels: { "hm.test": "1" },
    TaskTemplate: {
      ContainerSpec: { Image: swarmImage(), Command: ["sh", "-c", script], StopGracePeriod: 1e9 },
      RestartPolicy: { Condition: "any", Delay: 1e9 },
    },
    Mode: { Replicated: { Replicas: replicas } },
    EndpointSpec: { Mode: "dnsrr" },
  }
}
