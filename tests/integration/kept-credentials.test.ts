// Credentials kept with a URL, against the real service with sign-in on, restic with a REST server
// that wants a user and password (rclone serve restic) and two git servers: a backup repository
// given as rest:http://user:password@host/ is listed with its password masked to a viewer, in the
// API, MCP and the events; a git stack's token, given for one server, is not sent to another when
// an operator moves the stack's URL there without giving it again (while a move within the same
// server keeps it); a repository's string, and so its password's server, cannot be changed.
import { afterAll, beforeAll, expect, test } from "bun:test"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Engine } from "#lib/engine/client.ts"
import { cleanup, engineHost, realEngine, TEST_LABEL, testImage } from "../support/engine.ts"
import { startGitServer, type GitServer, type WorkTree } from "../support/git-server.ts"
import { freePort, startService, type Service } from "../support/service.ts"
import { addUser, callAs, newToken, signIn, type As } from "../support/users.ts"

const SLOW = 120_000
const REST_USER = "backup"
const REST_PASSWORD = "Rest-Pa55-q7Wz"
const REPO_PASSWORD = "restic-pw-8x2k"
const TOKEN = "git-token-Aq93kd"
const STACK = "hm-kept-git"

let engine: Engine
let svc: Service
let dataDir: string
let restDir: string
let rest: ReturnType<typeof Bun.spawn>
let restUrl: string
let origin: GitServer
let other: GitServer
let repo: WorkTree
let elsewhere: WorkTree
const as: Record<string, As> = {}

const compose = `services:
  app:
    image: ${testImage()}
    command: ["sh", "-c", "trap 'exit 0' TERM; while true; do sleep 0.2; done"]
    labels: { ${TEST_LABEL}: "1" }
`

beforeAll(async () => {
  engine = realEngine()
  await cleanup(engine)
  dataDir = mkdtempSync(join(tmpdir(), "hm-kept-"))
  restDir = mkdtempSync(join(tmpdir(), "hm-kept-rest-"))
  const port = await freePort()
  rest = Bun.spawn(
    [
      "rclone",
      "serve",
      "restic",
      "--config",
      "/dev/null",
      "--addr",
      `127.0.0.1:${port}`,
      "--user",
      REST_USER,
      "--pass",
      REST_PASSWORD,
      restDir,
    ],
    { stdout: "ignore", stderr: "ignore" },
  )
  restUrl = `rest:http://${REST_USER}:${REST_PASSWORD}@127.0.0.1:${port}/`
  for (let i = 0; i < 100; i++, await Bun.sleep(100))
    if ((await fetch(`http://127.0.0.1:${port}/`).catch(() => undefined))?.status === 401) break
  origin = startGitServer({ token: TOKEN })
  other = startGitServer()
  repo = await origin.repo("app")
  elsewhere = await other.repo("app")
  const files = { "compose.yaml": compose }
  await repo.commit(files)
  await elsewhere.commit(files)
  await addUser(dataDir, "root", "admin")
  await addUser(dataDir, "otto", "operator")
  await addUser(dataDir, "vera", "viewer")
  svc = await startService(
    { DOCKER_HOST: engineHost(), SVC_AUTH: "local", SVC_MCP: "read-only", SVC_TRANSFER_IMAGE: testImage() },
    { dataDir },
  )
  for (const user of ["root", "otto", "vera"]) as[user] = await signIn(svc.url, user)
}, SLOW)

afterAll(async () => {
  await callAs(svc.url, as.root, "DELETE", `/api/stacks/${STACK}`).catch(() => {})
  await svc.stop()
  rest.kill()
  origin.stop()
  other.stop()
  await cleanup(engine)
  rmSync(dataDir, { recursive: true, force: true })
  rmSync(restDir, { recursive: true, force: true })
}, SLOW)

test(
  "a backup repository's REST password is masked to a viewer in the API, MCP and the events",
  async () => {
    const added = await callAs(svc.url, as.root, "POST", "/api/backups/repos", {
      name: "rest",
      repository: restUrl,
      password: REPO_PASSWORD,
      init: true,
    })
    expect(added.status).toBe(201)
    const masked = restUrl.replace(`:${REST_PASSWORD}@`, ":***@")
    expect(added.body.repository).toBe(masked)
    const listed = await callAs(svc.url, as.vera, "GET", "/api/backups/repos")
    expect(listed.status).toBe(200)
    expect(listed.body.map((r: any) => r.repository)).toEqual([masked])

    const { token } = await newToken(svc.url, as.vera as { cookie: string })
    const client = new Client({ name: "kept", version: "1" })
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${svc.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    )
    const tool = await client.callTool({ name: "list_backup_repositories", arguments: {} })
    const text = (tool.content as { text: string }[]).map((c) => c.text).join("")
    expect(text).toContain(masked)
    await client.close()

    const seen = [
      listed.text,
      text,
      added.text,
      (await callAs(svc.url, as.vera, "GET", "/api/events/history")).text,
      (await callAs(svc.url, as.vera, "GET", "/api/backups/repos/rest/status")).text,
      (await callAs(svc.url, as.vera, "GET", "/api/dashboard")).text,
    ].join("\n")
    expect(seen).not.toContain(REST_PASSWORD)
    expect(seen).not.toContain(REPO_PASSWORD)
  },
  SLOW,
)

test(
  "a repository's string cannot be changed, so its password never goes to another server",
  async () => {
    const edit = await callAs(svc.url, as.root, "PUT", "/api/backups/repos/rest", {
      repository: "rest:http://127.0.0.1:1/",
      schedule: "1h",
    })
    expect(edit.status).toBe(200)
    expect(edit.body.repository).toBe(restUrl.replace(`:${REST_PASSWORD}@`, ":***@"))
  },
  SLOW,
)

test(
  "a git stack's token is not sent to another server when the URL moves there without it; within its server it stays",
  async () => {
    const created = await callAs(svc.url, as.otto, "POST", "/api/stacks", {
      name: STACK,
      git: { url: repo.url, path: "compose.yaml", token: TOKEN },
    })
    expect(created.status).toBe(201)
    expect(created.body.git.source.has_token).toBe(true)

    const same = await origin.repo("moved")
    await same.commit({ "compose.yaml": compose })
    const within = await callAs(svc.url, as.otto, "PUT", `/api/stacks/${STACK}/git`, {
      url: same.url,
      path: "compose.yaml",
    })
    expect(within.status).toBe(200)
    expect(within.body.source.has_token).toBe(true)
    expect(["applied", "unchanged"]).toContain(within.body.sync.verdict)

    const moved = await callAs(svc.url, as.otto, "PUT", `/api/stacks/${STACK}/git`, {
      url: elsewhere.url,
      path: "compose.yaml",
    })
    expect(moved.status).toBe(200)
    expect(moved.body.source.has_token).toBe(false)
    expect(["applied", "unchanged"]).toContain(moved.body.sync.verdict)
    expect(other.authorizations).toEqual([])
    const status = await callAs(svc.url, as.vera, "GET", `/api/stacks/${STACK}/git`)
    expect(status.body).toMatchObject({ url: elsewhere.url, has_token: false })
    expect(other.authorizations).toEqual([])
  },
  SLOW,
)
