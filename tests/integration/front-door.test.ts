// The front door against the real service process and the real private engine, tried as an attacker
// would: a user limited to one stack, a stranger on the network, a user removed while their tabs are
// open, floods. Each case is a promise the front door keeps:
// 1. a token is never wider than its owner: made wider, it is refused; its owner's role or stacks
//    shrunk later, it shrinks with them (also through MCP, its resources included);
// 2. a caller limited to stacks creates no stack by any route (copy, adoption, git), as POST
//    /api/stacks refuses them;
// 3. ending a credential ends what was opened with it: a user removed or made a viewer from the
//    command line, a session signed out, a token revoked close their shells (1008 with the reason) and
//    end their event streams;
// 4. a stranger's wrong passwords for a user, or a flood of made-up users behind the trusted proxy
//    (Caddy), lock out only the stranger's own address: the user signs in from theirs;
// 5. an admin signs in while 500 wrong passwords arrive from 10 addresses, answered before the flood;
// 6. tokens per user are bounded, each kept in a file of its own;
// and each refusal is in the audit log once, without the secret.
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { STACK_LABEL } from "#lib/engine/containers.ts"
import type { Engine } from "#lib/engine/client.ts"
import { cleanup, engineHost, realEngine, TEST_LABEL, testImage } from "../support/engine.ts"
import { startGitServer, type GitServer } from "../support/git-server.ts"
import { freePort, startService, type Service } from "../support/service.ts"
import { terminal } from "../support/terminal.ts"
import {
  addUser,
  callAs,
  credentialHeaders,
  newToken,
  signIn,
  USER_PASSWORD,
  userCli,
  type As,
} from "../support/users.ts"

const SLOW = 120_000
const A = "hm-fd-a"
const B = "hm-fd-b"
const FREE = "hm-fd-free"
const compose = `services:
  app:
    image: ${testImage()}
    command: ["sh", "-c", "trap 'exit 0' TERM; while true; do sleep 0.2; done"]
    labels: { ${TEST_LABEL}: "1" }
`

let engine: Engine
let svc: Service
let dataDir: string
let git: GitServer
const as: Record<string, As> = {}

const call = (who: As, method: string, path: string, body?: unknown) => callAs(svc.url, who, method, path, body)

/** The audit entries the admin reads (the newest first). */
async function audit(query = ""): Promise<any[]> {
  const r = await call(as.root, "GET", `/api/audit?limit=1000${query}`)
  expect(r.status).toBe(200)
  return r.body.entries
}

/** An event stream opened as `who`; `ended` settles when the service ends it. */
async function events(who: As) {
  const res = await fetch(`${svc.url}/api/events`, { headers: credentialHeaders(who) })
  expect(res.status).toBe(200)
  const reader = res.body!.getReader()
  const ended = (async () => {
    for (;;) if ((await reader.read()).done) return
  })()
  return { ended, cancel: () => reader.cancel().catch(() => {}) }
}

/** A shell into stack A's container, opened as `who`. */
async function shell(who: As) {
  const [c] = await engine.listContainers({ filters: { label: [`${STACK_LABEL}=${A}`] } })
  const term = await terminal(`${svc.url.replace("http:", "ws:")}/api/containers/${c!.Id}/shell`, {
    headers: credentialHeaders(who),
  })
  await term.prompt()
  return term
}

/** Settles with what came first: the promise, or "still open" after `ms` (never an assertion on time). */
const within = <T>(p: Promise<T>, ms = 10_000) => Promise.race([p, Bun.sleep(ms).then(() => "still open" as const)])

beforeAll(async () => {
  engine = realEngine()
  await cleanup(engine)
  dataDir = mkdtempSync(join(tmpdir(), "hm-fd-"))
  await addUser(dataDir, "root", "admin")
  await addUser(dataDir, "olga", "operator", [A, FREE])
  await addUser(dataDir, "vic", "viewer", [A])
  for (const name of ["otto", "opal", "oscar"]) await addUser(dataDir, name, "operator")
  for (const name of ["sam", "lena", "carl"]) await addUser(dataDir, name, "viewer")
  git = startGitServer()
  svc = await startService(
    {
      DOCKER_HOST: engineHost(),
      SVC_AUTH: "local",
      SVC_MCP: "full",
      // The test's own calls with X-Forwarded-For, and Caddy's, come from here.
      SVC_AUTH_TRUSTED_PROXIES: "127.0.0.1",
    },
    { dataDir },
  )
  for (const user of ["root", "olga", "vic", "otto", "opal", "sam", "carl"]) as[user] = await signIn(svc.url, user)
  for (const name of [A, B])
    expect((await call(as.root, "POST", "/api/stacks", { name, content: compose })).status).toBe(201)
}, SLOW)

afterAll(async () => {
  for (const name of [A, B, FREE, "hm-fd-copy"]) await call(as.root, "DELETE", `/api/stacks/${name}`).catch(() => {})
  await svc.stop()
  git.stop()
  await cleanup(engine)
  rmSync(dataDir, { recursive: true, force: true })
}, SLOW)

describe("1. a token is never wider than its owner", () => {
  test(
    "an operator of one stack cannot make a token for another stack, nor a viewer of one; their own scope they can",
    async () => {
      const wider = await call(as.olga, "POST", "/api/tokens", { name: "b", stacks: [B] })
      expect([wider.status, wider.body.error?.code]).toEqual([403, "forbidden"])
      const viewer = await call(as.vic, "POST", "/api/tokens", { name: "b", stacks: [B] })
      expect(viewer.status).toBe(403)
      const admin = await call(as.root, "POST", "/api/tokens", { name: "b", user: "vic", stacks: [B] })
      expect(admin.status).toBe(403)
      const mixed = await call(as.olga, "POST", "/api/tokens", { name: "ab", stacks: [A, B] })
      expect(mixed.status).toBe(403)
      const own = await newToken(svc.url, as.olga as { cookie: string }, { stacks: [A] })
      const stopB = await call({ token: own.token }, "POST", `/api/stacks/${B}/stop`)
      expect(stopB.status).toBe(403)
      expect((await call({ token: own.token }, "GET", `/api/stacks/${B}/compose`)).status).toBe(403)
      expect((await call({ token: own.token }, "GET", `/api/stacks/${A}/compose`)).status).toBe(200)
    },
    SLOW,
  )

  test(
    "a token shrinks with its owner: a role lowered and stacks taken away from the command line narrow it at its next use",
    async () => {
      await addUser(dataDir, "olive", "operator", [A, B])
      const olive = await signIn(svc.url, "olive")
      const { token } = await newToken(svc.url, olive)
      expect((await call({ token }, "GET", `/api/stacks/${B}/compose`)).status).toBe(200)
      expect((await userCli(dataDir, ["stacks", "olive", A])).code).toBe(0)
      expect((await call({ token }, "GET", `/api/stacks/${B}/compose`)).status).toBe(403)
      expect((await call({ token }, "GET", `/api/stacks/${A}/compose`)).status).toBe(200)
      expect((await userCli(dataDir, ["role", "olive", "viewer"])).code).toBe(0)
      expect((await call({ token }, "POST", `/api/stacks/${A}/restart`)).status).toBe(403)
      expect((await call({ token }, "GET", "/api/auth/me")).body).toMatchObject({ role: "viewer", stacks: [A] })
    },
    SLOW,
  )

  test(
    "through MCP a token limited to one stack lists, reads and acts on that stack only, its compose resources included",
    async () => {
      const { token } = await newToken(svc.url, as.olga as { cookie: string }, { mcp_confirm: false })
      const client = new Client({ name: "front-door", version: "1" })
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${svc.url}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        }),
      )
      const resources = (await client.listResources()).resources.map((r) => r.uri)
      expect(resources).toEqual([`stack://${A}/compose`])
      const read = await client.readResource({ uri: `stack://${A}/compose` })
      expect((read.contents[0] as { text: string }).text).toContain("services:")
      expect(client.readResource({ uri: `stack://${B}/compose` })).rejects.toThrow(/may act only on the stacks/)
      const stop = await client.callTool({ name: "check_stack_updates", arguments: { name: B } })
      expect(stop.isError).toBe(true)
      expect(JSON.stringify(stop.content)).toContain("forbidden")
      await client.close()
    },
    SLOW,
  )
})

describe("2. a caller limited to stacks creates none", () => {
  test(
    "copy under a new name, git deploy of a stack in their scope and adoption are refused as POST /api/stacks is",
    async () => {
      const repo = await git.repo("free")
      await repo.commit({ "compose.yaml": compose })
      const refusals = [
        await call(as.olga, "POST", "/api/stacks", { name: FREE, content: compose }),
        await call(as.olga, "POST", `/api/stacks/${A}/copy`, { as: "hm-fd-copy" }),
        await call(as.olga, "POST", `/api/stacks/${A}/copy`, { as: FREE, dry_run: true }),
        await call(as.olga, "PUT", `/api/stacks/${FREE}/git`, { url: repo.url, path: "compose.yaml" }),
        await call(as.olga, "POST", `/api/stacks/${FREE}/adopt`, { content: compose, dry_run: true }),
        await call(as.olga, "POST", "/api/containers/adopt", { containers: ["x"], stack: FREE, dry_run: true }),
      ]
      expect(refusals.map((r) => r.status)).toEqual([403, 403, 403, 403, 403, 403])
      const names = (await call(as.root, "GET", "/api/stacks")).body.map((s: any) => s.name)
      expect(names).not.toContain("hm-fd-copy")
      expect(names).not.toContain(FREE)
      // What they may do to their own stack, they still do.
      expect((await call(as.olga, "POST", `/api/stacks/${A}/restart`)).status).toBe(200)
    },
    SLOW,
  )
})

describe("3. ending a credential ends what was opened with it", () => {
  test(
    "a user removed from the command line: their shell closes with 1008 and their event stream ends",
    async () => {
      const term = await shell(as.otto)
      const stream = await events(as.otto)
      expect((await userCli(dataDir, ["del", "otto"])).code).toBe(0)
      const closed = await within(term.closed)
      expect(closed).not.toBe("still open")
      expect([(closed as CloseEvent).code, (closed as CloseEvent).reason]).toEqual([1008, "user removed"])
      expect(await within(stream.ended)).not.toBe("still open")
    },
    SLOW,
  )

  test(
    "a session signed out ends its shell and its event stream; a role lowered from the command line closes the shell only",
    async () => {
      const term = await shell(as.opal)
      const stream = await events(as.opal)
      expect((await call(as.opal, "POST", "/api/auth/logout")).status).toBe(200)
      const closed = await within(term.closed)
      expect((closed as CloseEvent).reason).toBe("signed out")
      expect(await within(stream.ended)).not.toBe("still open")

      const oscar = await signIn(svc.url, "oscar")
      const term2 = await shell(oscar)
      const stream2 = await events(oscar)
      expect((await userCli(dataDir, ["role", "oscar", "viewer"])).code).toBe(0)
      const closed2 = await within(term2.closed)
      expect((closed2 as CloseEvent).reason).toBe("role changed")
      // A viewer still reads events: that stream stays open.
      expect(await within(stream2.ended, 1500)).toBe("still open")
      stream2.cancel()
    },
    SLOW,
  )

  test(
    "a token revoked ends the event stream opened with it",
    async () => {
      const { token, id } = await newToken(svc.url, as.sam as { cookie: string })
      const stream = await events({ token })
      expect((await call(as.sam, "DELETE", `/api/tokens/${id}`)).status).toBe(200)
      expect(await within(stream.ended)).not.toBe("still open")
    },
    SLOW,
  )
})

/** A sign-in of `user` as seen coming from `address` through the trusted proxy (X-Forwarded-For). */
const signInFrom = (address: string, user: string, password: string) =>
  fetch(`${svc.url}/api/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": address },
    body: JSON.stringify({ user, password }),
  })

describe("4. a stranger cannot lock a user out", () => {
  test(
    "five wrong passwords for a user from one address make that address wait; the user signs in from another",
    async () => {
      const stranger: number[] = []
      for (let i = 0; i < 7; i++) stranger.push((await signInFrom("198.51.100.7", "lena", "wrong password")).status)
      expect(stranger).toEqual([401, 401, 401, 401, 401, 429, 429])
      expect((await signInFrom("203.0.113.20", "lena", USER_PASSWORD)).status).toBe(200)
    },
    SLOW,
  )

  test(
    "behind Caddy, failures for made-up users from one client lock out neither the other clients nor the users",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "hm-fd-caddy-"))
      const port = await freePort()
      writeFileSync(
        join(dir, "Caddyfile"),
        `{\n\tadmin off\n}\nhttp://:${port} {\n\treverse_proxy 127.0.0.1:${svc.port}\n}\n`,
      )
      const caddy = Bun.spawn(["caddy", "run", "--adapter", "caddyfile", "--config", join(dir, "Caddyfile")], {
        env: { PATH: process.env.PATH, HOME: dir, XDG_DATA_HOME: dir, XDG_CONFIG_HOME: dir },
        stdout: "ignore",
        stderr: "ignore",
      })
      try {
        // curl from a source address of its own: Caddy tells the service that address in X-Forwarded-For.
        const viaCaddy = async (source: string, user: string, password: string) => {
          for (let i = 0; ; i++) {
            const p = Bun.spawn(
              [
                "curl",
                "-s",
                "-o",
                "/dev/null",
                "-w",
                "%{http_code}",
                "--interface",
                source,
                "-H",
                "content-type: application/json",
                // A client's own X-Forwarded-For is replaced by Caddy: it cannot pose as another address.
                "-H",
                "x-forwarded-for: 203.0.113.99",
                "--data",
                JSON.stringify({ user, password }),
                `http://127.0.0.1:${port}/api/auth/login`,
              ],
              { stdout: "pipe" },
            )
            const code = Number(await new Response(p.stdout).text())
            if (code || i === 100) return code
            await Bun.sleep(50)
          }
        }
        const flood: number[] = []
        for (let i = 0; i < 30; i++) flood.push(await viaCaddy("127.0.0.2", `nobody${i}`, "wrong password"))
        expect(flood.filter((s) => s === 429).length).toBeGreaterThan(0)
        expect(await viaCaddy("127.0.0.3", "carl", USER_PASSWORD)).toBe(200)
        expect(await viaCaddy("127.0.0.3", "root", USER_PASSWORD)).toBe(200)
      } finally {
        caddy.kill()
        await caddy.exited
        rmSync(dir, { recursive: true, force: true })
      }
    },
    SLOW,
  )
})

describe("5. sign-in is not starved by a flood", () => {
  test(
    "the admin's sign-in is answered while 500 wrong passwords from 10 addresses are still being answered",
    async () => {
      // Each wrong password that was checked (401), in the order answered.
      let checked = 0
      const flood = Array.from({ length: 500 }, (_, i) =>
        signInFrom(`192.0.2.${(i % 10) + 1}`, `user${i}`, "wrong password").then((r) => {
          if (r.status === 401) checked++
          return r.status
        }),
      )
      await Bun.sleep(50)
      const admin = await signInFrom("203.0.113.1", "root", USER_PASSWORD)
      const checkedBefore = checked
      expect(admin.status).toBe(200)
      const statuses = await Promise.all(flood)
      const checkedAll = statuses.filter((s) => s === 401).length
      // Over-limit attempts were refused before a hash; of those checked, most came after the admin's.
      expect(checkedAll).toBeLessThan(500)
      expect(checkedBefore).toBeLessThan(checkedAll / 2)
      expect(statuses.filter((s) => s !== 401 && s !== 429 && s !== 503)).toEqual([])
    },
    SLOW,
  )
})

describe("6. tokens are bounded and each is a file of its own", () => {
  test(
    "a viewer makes 100 tokens, the 101st is refused; each creation writes one small file",
    async () => {
      const made: number[] = []
      for (let i = 0; i < 101; i++) made.push((await call(as.carl, "POST", "/api/tokens", { name: `t${i}` })).status)
      expect(made.slice(0, 100).every((s) => s === 201)).toBe(true)
      expect(made[100]).toBe(409)
      const biggest = Math.max(
        ...readdirSync(join(dataDir, "auth"), { recursive: true, withFileTypes: true })
          .filter((e) => e.isFile())
          .map((e) => statSync(join(e.parentPath, e.name)).size),
      )
      expect(biggest).toBeLessThan(8192)
      expect((await call(as.carl, "GET", "/api/tokens")).body.length).toBe(100)
    },
    SLOW,
  )
})

test(
  "each refusal is in the audit log once, and no password or token is in it",
  async () => {
    const entries = await audit()
    const times = (n: number, pred: (e: any) => boolean) => expect(entries.filter(pred).length).toBe(n)
    const once = (pred: (e: any) => boolean) => times(1, pred)
    once((e) => e.user === "vic" && e.route === "/api/tokens" && e.status === 403)
    // Two copies were refused: one entry each.
    times(
      2,
      (e) => e.user === "olga" && e.route === "/api/stacks/:name/copy" && e.target.name === A && e.status === 403,
    )
    once((e) => e.user === "olga" && e.route === "/api/stacks/:name/git" && e.status === 403)
    once((e) => e.user === "otto" && e.action === "ws.ended" && e.reason === "user removed")
    once((e) => e.user === "otto" && e.action === "stream.ended" && e.reason === "user removed")
    once((e) => e.user === "carl" && e.route === "/api/tokens" && e.status === 409)
    // The stranger's two attempts during the wait, each refused once, with the name it tried.
    times(2, (e) => e.user === "lena" && e.action === "login" && e.status === 429 && e.peer === "198.51.100.7")
    const text = readdirSync(join(dataDir, "audit"))
      .map((f) => readFileSync(join(dataDir, "audit", f), "utf8"))
      .join("")
    expect(text).not.toContain(USER_PASSWORD)
    expect(text).not.toContain("wrong password")
    expect(text).not.toMatch(/hm_[A-Za-z0-9_-]{20}/)
  },
  SLOW,
)
