// The Swarm page in Chromium against the service on the test swarm's manager (scripts/swarm.sh): the
// swarm's nodes (said apart from the node registry), a service with its replicas running and desired,
// scaled from the page, its tasks and the node each runs on, a worker drained and activated again; a
// swarm stack's page lists its services.
import { afterAll, afterEach, beforeAll, expect, test } from "bun:test"
import type { Page } from "playwright-core"
import { startService, type Service } from "../support/service.ts"
import { openBrowser, type Browser } from "../support/browser.ts"
import { serviceSpec, swarmImage, swarmManager, swarmManagerHost, until } from "../support/swarm.ts"

const manager = swarmManager()
const NAME = `uiswarm${process.pid}`
const STACK = `uiswarmstack${process.pid}`
let svc: Service
let browser: Browser
let page: Page
let serviceId: string

beforeAll(async () => {
  serviceId = (await manager.createService(serviceSpec(NAME, 2))).ID
  svc = await startService({ DOCKER_HOST: swarmManagerHost() })
  browser = await openBrowser()
  page = browser.page
}, 120_000)

afterEach(() => {
  expect(browser.pageErrors.splice(0)).toEqual([])
})

afterAll(async () => {
  await browser?.close()
  await fetch(`${svc?.url}/api/stacks/${STACK}`, { method: "DELETE" }).catch(() => {})
  await svc?.stop()
  await manager.removeService(serviceId).catch(() => {})
  const [worker] = await manager.listNodes({ name: ["worker2"] })
  const node = await manager.inspectNode(worker!.ID)
  if (node.Spec.Availability !== "active")
    await manager.updateNode(node.ID, node.Version.Index, { ...node.Spec, Availability: "active" })
})

const running = async () => (await manager.listServices({ id: [serviceId] }))[0]?.ServiceStatus?.RunningTasks

test("the swarm's nodes and services; scale a service; its tasks; drain a worker", async () => {
  await until(async () => (await running()) === 2, 90)
  await page.goto(`${svc.url}/#/swarm`)
  await page.getByRole("heading", { name: "Swarm nodes" }).waitFor()
  expect(await page.locator("main").textContent()).toContain("node registry")
  const nodes = page.locator('section[aria-labelledby="swarm-nodes-h"] tbody tr')
  await nodes.first().waitFor()
  expect(await nodes.count()).toBe(3)
  expect(await nodes.filter({ hasText: "leader" }).textContent()).toContain("manager")

  const row = page.locator('section[aria-labelledby="swarm-services-h"] tbody tr', { hasText: NAME })
  await row.waitFor()
  expect(await row.textContent()).toContain("2 / 2")

  await page.getByRole("button", { name: `Scale ${NAME}` }).click()
  await page.locator("#scale-replicas").fill("3")
  await page.getByRole("button", { name: "Scale", exact: true }).click()
  await page.getByText(`${NAME}: 3 replicas`).waitFor()
  await until(async () => (await running()) === 3, 90)

  await row.getByRole("link", { name: NAME }).click()
  await page.getByRole("heading", { name: "Tasks" }).waitFor()
  await until(async () => {
    await page.reload()
    await page.getByRole("heading", { name: "Tasks" }).waitFor()
    return (await page.locator("main tbody tr", { hasText: "running" }).count()) === 3
  }, 60)
  const hosts = await page.locator("main tbody tr td:nth-child(2)").allTextContents()
  expect(hosts.every((host) => ["manager", "worker1", "worker2"].includes(host))).toBe(true)

  await page.goto(`${svc.url}/#/swarm`)
  await page.getByRole("button", { name: "Drain worker2" }).click()
  await page.getByRole("button", { name: "Confirm" }).click()
  await page.getByText("worker2: drain").waitFor()
  await until(async () => {
    const tasks = await manager.listTasks({ service: [serviceId], "desired-state": ["running"] })
    const [worker2] = await manager.listNodes({ name: ["worker2"] })
    return tasks.length === 3 && tasks.every((t) => t.NodeID !== worker2!.ID && t.Status.State === "running")
  }, 90)
  await page.getByRole("button", { name: "Activate worker2" }).click()
  await page.getByText("worker2: active").waitFor()
}, 300_000)

test("a swarm stack's page lists its services with their replicas", async () => {
  const compose = `services:\n  web:\n    image: ${swarmImage()}\n    command: ["sleep", "3600"]\n    stop_grace_period: 1s\n    deploy:\n      endpoint_mode: dnsrr\n      replicas: 2\n`
  const res = await fetch(`${svc.url}/api/stacks`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: STACK, content: compose, orchestrator: "swarm" }),
  })
  expect(res.status).toBe(201)
  await page.goto(`${svc.url}/#/stacks/${STACK}`)
  const row = page.locator('section[aria-label="Swarm services"] tbody tr', { hasText: `${STACK}_web` })
  await row.waitFor()
  expect(await row.textContent()).toContain("2 / 2")
  // The actions its orchestrator has a meaning for: a restart, but no start, stop or pause.
  await page.getByRole("button", { name: `Restart ${STACK}` }).waitFor()
  for (const name of ["Start", "Stop", "Pause", "Unpause"])
    expect(await page.getByRole("button", { name: `${name} ${STACK}`, exact: true }).count()).toBe(0)
  await row.getByRole("link", { name: `${STACK}_web` }).click()
  await page.getByRole("heading", { name: "Tasks" }).waitFor()
  // In the stack list: the swarm marker, its health, and a kind filter that finds it.
  await page.goto(`${svc.url}/#/stacks?kind=swarm`)
  const listed = page.locator("main tbody tr", { has: page.getByRole("link", { name: STACK, exact: true }) })
  await listed.locator(".badge.marker", { hasText: "swarm" }).waitFor()
  expect(await listed.locator(`td[data-label="Health"] .badge`).textContent()).toBe("running")
  expect(await page.locator("main tbody tr").count()).toBe(1)
}, 180_000)
