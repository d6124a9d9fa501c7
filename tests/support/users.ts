// Users of a real service process: made with the command line (`server user ...` on its data
// directory, the password on standard input), signed in over HTTP, and calls made as them.
import { join } from "node:path"

const root = join(import.meta.dir, "../..")

export const USER_PASSWORD = "a long enough password"

/** `server user ARGS` on `dataDir`, `stdin` as its standard input: its exit code and output. */
export async function userCli(dataDir: string, args: string[], stdin = "") {
  const proc = Bun.spawn(["bun", join(root, "server.ts"), "user", ...args], {
    env: { ...process.env, SVC_DATA: dataDir },
    stdin: new TextEncoder().encode(stdin),
    stdout: "pipe",
    stderr: "pipe",
  })
  const out = await new Response(proc.stdout).text()
  return { code: await proc.exited, out }
}

/** Adds a user from the command line (throws when it fails). */
export async function addUser(dataDir: string, name: string, role: string, stacks?: string[]) {
  const r = await userCli(
    dataDir,
    ["add", name, "--role", role, ...(stacks ? ["--stacks", stacks.join(",")] : [])],
    USER_PASSWORD,
  )
  if (r.code !== 0) throw new Error(`user add ${name}: ${r.out}`)
}

/** Who a call is made as: a session cookie, an API token, or nobody. */
export type As = { cookie: string } | { token: string } | undefined

export const credentialHeaders = (as: As): Record<string, string> =>
  !as ? {} : "cookie" in as ? { cookie: as.cookie } : { authorization: `Bearer ${as.token}` }

/** Signs `user` in; the session's Cookie header. */
export async function signIn(
  url: string,
  user: string,
  password = USER_PASSWORD,
  headers: Record<string, string> = {},
) {
  const res = await fetch(`${url}/api/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ user, password }),
  })
  if (res.status !== 200) throw new Error(`sign-in of ${user} answered ${res.status}: ${await res.text()}`)
  return { cookie: res.headers.get("set-cookie")!.split(";")[0]! }
}

/** A call as `as`: its status and its body (JSON when it is, else text). */
export async function callAs(url: string, as: As, method: string, path: string, body?: unknown) {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: {
      ...credentialHeaders(as),
      ...(body !== undefined ? { "content-type": "application/json" } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await res.text()
  let parsed: any = text
  try {
    parsed = JSON.parse(text)
  } catch {}
  return { status: res.status, body: parsed, text }
}

/** A new API token for the user signed in with `cookie`. */
export async function newToken(url: string, as: { cookie: string }, body: Record<string, unknown> = {}) {
  const r = await callAs(url, as, "POST", "/api/tokens", { name: "test", ...body })
  if (r.status !== 201) throw new Error(`token answered ${r.status}: ${r.text}`)
  return { token: r.body.token as string, id: r.body.id as string }
}

/** Every file the front door keeps under `<dataDir>/auth` (users, sessions, tokens, their use times), with its text. */
export function authFiles(dataDir: string): { path: string; mode: number; text: string }[] {
  const { readdirSync, readFileSync, statSync } = require("node:fs") as typeof import("node:fs")
  const dir = join(dataDir, "auth")
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => {
      const path = join(e.parentPath, e.name)
      return { path, mode: statSync(path).mode & 0o777, text: readFileSync(path, "utf8") }
    })
}
