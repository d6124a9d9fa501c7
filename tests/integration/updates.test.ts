// Update checks against a real registry: push, check, push a new version under the same tag, check,
// pull, check. The registry and the service run in the private engine's network namespace.
import { afterAll, beforeAll, expect, test } from "bun:test"
import { join } from "node:path"
import type { Engine } from "#lib/engine/client.ts"
import { cleanup, engineHost, realEngine, TEST_LABEL, testImage } from "../support/engine.ts"
import { netnsA, startRegistry, veth, type TestRegistry } from "../support/netns.ts"
import { startService, type Service } from "../support/service.ts"

let engine: Engine
let registry: TestRegistry
let link: Awaited<ReturnType<typeof veth>>
let service: Service
const made: string[] = []

beforeAll(async () => {
  engine = realEngine()
  const ns = netnsA()
  registry = await startRegistry(ns)
  link = await veth(ns)
  service = await startService(
    { DOCKER_HOST: engineHost() },
    { host: link.inside, cmd: ["ip", "netns", "exec", ns, "bun", join(import.meta.dir, "../../server.ts")] },
  )
})

afterAll(async () => {
  await cleanup(engine)
  for (const ref of made) await engine.removeImage(ref, { force: true }).catch(() => {})
  await service?.stop()
  await link?.remove()
  await registry?.stop()
})

async function checkUpdate(): Promise<{
  update_available: boolean
  images: {
    ref: string
    update_available: boolean | null
    remote_digest: string
    local_digests: string[]
    error: string | null
  }[]
}> {
  const res = await fetch(`${service.url}/api/stacks/hmupd/check-update`, { method: "POST" })
  expect(res.status).toBe(200)
  return res.json()
}

/** A new image of the same repository: the old one with one more file, made by a container and a commit. */
async function newVersion(ref: string): Promise<string> {
  const { Id } = await engine.createContainer({
    Image: ref,
    Cmd: ["sh", "-c", "date > /version"],
    Labels: { [TEST_LABEL]: "1" },
  })
  await engine.containerAction(Id, "start")
  await engine.waitContainer(Id)
  const [repo, tag] = [ref.slice(0, ref.lastIndexOf(":")), ref.slice(ref.lastIndexOf(":") + 1)]
  return (await engine.commitContainer(Id, repo, tag)).Id
}

test("push, check: up to date; new version pushed under the tag: update available; pull: up to date", async () => {
  const repo = `${registry.host}/hm/app`
  const ref = `${repo}:v1`
  await engine.tagImage(testImage(), repo, "v1")
  await engine.pushImage(ref)
  const v1 = await engine.inspectImage(ref)
  // v1 is the test image under a second name: removing it by id would remove the test image too.
  made.push(ref)
  await engine.createContainer({
    Image: ref,
    Cmd: ["true"],
    Labels: { [TEST_LABEL]: "1", "com.docker.compose.project": "hmupd", "com.docker.compose.service": "app" },
  })

  const first = await checkUpdate()
  expect(first.update_available).toBe(false)
  expect(first.images).toHaveLength(1)
  expect(first.images[0]).toMatchObject({ ref, update_available: false, error: null })
  expect(first.images[0]!.local_digests).toContain(first.images[0]!.remote_digest)

  const v2 = await newVersion(ref)
  made.push(v2)
  await engine.pushImage(ref)
  const pushed = (await engine.inspectImage(v2)).RepoDigests.find((d) => d.startsWith(`${repo}@`))!.split("@")[1]
  await engine.tagImage(v1.Id, repo, "v1")

  const second = await checkUpdate()
  expect(second.update_available).toBe(true)
  expect(second.images[0]).toMatchObject({ ref, update_available: true, remote_digest: pushed, error: null })
  expect(second.images[0]!.local_digests).not.toContain(pushed)
  const listed = (await (await fetch(`${service.url}/api/images`)).json()) as {
    id: string
    update_available: boolean | null
  }[]
  expect(listed.find((i) => i.id === v1.Id)?.update_available).toBe(true)

  await engine.pullImage(ref)
  expect((await engine.inspectImage(ref)).Id).toBe(v2)
  const third = await checkUpdate()
  expect(third.images[0]).toMatchObject({ ref, update_available: false, remote_digest: pushed, error: null })
})
