// Private registries for the integration tests, each the real distribution registry (Debian's
// docker-registry) behind TLS from a CA of the test's own (openssl):
// - `basic`: htpasswd authentication;
// - `token`: the registry's token authentication, its tokens from the test's token service
//   (tests/support/registry-side.ts), which answers over plain http: the containerd image store
//   trusts a token service only through the system's CAs, not the registry's certs.d;
// - `limited`: a proxy in front of `basic` reporting a pull quota as Docker Hub does, 429 at none left.
// They run in a network namespace of their own on a bridge that the host's namespace and the given
// engines' namespaces are joined to (`registryHub`), or in one the caller has (the test swarm's hub).
// An engine trusts the CA through its own /etc/docker/certs.d/<host:port>/ca.crt (`trust`).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"

async function run(cmd: string[]): Promise<string> {
  const proc = Bun.spawn(cmd, { stdout: "pipe", stderr: "pipe" })
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ])
  if (code !== 0) throw new Error(`${cmd.join(" ")}: ${err}`)
  return out
}

/** A namespace with a bridge at <subnet>.1, joined by a veth to the host (<subnet>.2) and to each of `namespaces` (.3, .4...). */
export async function registryHub(
  namespaces: string[],
): Promise<{ ns: string; address: string; remove(): Promise<void> }> {
  const n = 20 + (process.pid % 200)
  const subnet = `10.216.${n}`
  const tag = `hr${process.pid % 100000}`
  const ns = `${tag}hub`
  await run(["ip", "netns", "add", ns])
  await run(["ip", "-n", ns, "link", "set", "lo", "up"])
  await run(["ip", "-n", ns, "link", "add", "br0", "type", "bridge"])
  await run(["ip", "-n", ns, "addr", "add", `${subnet}.1/24`, "dev", "br0"])
  await run(["ip", "-n", ns, "link", "set", "br0", "up"])
  const legs = ["", ...namespaces]
  for (const [i, leg] of legs.entries()) {
    const outer = `${tag}v${i}`
    const inner = `${tag}e${i}`
    await run(["ip", "-n", ns, "link", "add", outer, "type", "veth", "peer", "name", inner])
    await run(["ip", "-n", ns, "link", "set", outer, "master", "br0", "up"])
    if (leg) await run(["ip", "-n", ns, "link", "set", inner, "netns", leg])
    else await run(["ip", "-n", ns, "link", "set", inner, "netns", String(process.pid)])
    const within = leg ? ["ip", "-n", leg] : ["ip"]
    await run([...within, "addr", "add", `${subnet}.${i + 2}/24`, "dev", inner])
    await run([...within, "link", "set", inner, "up"])
  }
  return {
    ns,
    address: `${subnet}.1`,
    async remove() {
      await run(["ip", "link", "del", `${tag}e0`]).catch(() => {})
      await run(["ip", "netns", "del", ns]).catch(() => {})
    },
  }
}

export interface Credentials {
  username: string
  password: string
}

export interface PrivateRegistries {
  /** host:port of each. */
  basic: string
  token: string
  limited: string
  /** The token service's base URL (plain http). */
  tokenService: string
  /** The CA's certificate (PEM). */
  ca: string
  users: { basic: Credentials; token: Credentials }
  /** The pulls the limited registry has left (429 at 0). */
  setRemaining(n: number): Promise<void>
  /** The token service issues expired tokens (true) or good ones. */
  setExpired(expired: boolean): Promise<void>
  /** Stops (false) or starts again (true) the htpasswd registry: a registry that is down. */
  setBasicUp(up: boolean): Promise<void>
  /** Makes the engine at DOCKER_HOST `unix://DIR/docker.sock` trust the CA for each registry. */
  trust(dockerHost: string): void
  stop(): Promise<void>
}

const PORTS = { basic: 5443, token: 5444, limited: 5445, tokenService: 5401 }

/** The CA, a server certificate for `address`, and the token signer's certificate, made with openssl in `dir`. */
async function pki(dir: string, address: string): Promise<void> {
  const ssl = (...args: string[]) => run(["openssl", ...args])
  await ssl(
    "req",
    "-x509",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-keyout",
    `${dir}/ca.key`,
    "-out",
    `${dir}/ca.crt`,
    "-days",
    "2",
    "-subj",
    "/CN=hm test CA",
  )
  writeFileSync(
    `${dir}/server.ext`,
    `subjectAltName=IP:${address}\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n`,
  )
  for (const [name, ext] of [
    ["server", ["-extfile", `${dir}/server.ext`]],
    ["signer", []],
  ] as const) {
    await ssl(
      "req",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-keyout",
      `${dir}/${name}.key`,
      "-out",
      `${dir}/${name}.csr`,
      "-subj",
      `/CN=hm test ${name}`,
    )
    await ssl(
      "x509",
      "-req",
      "-in",
      `${dir}/${name}.csr`,
      "-CA",
      `${dir}/ca.crt`,
      "-CAkey",
      `${dir}/ca.key`,
      "-CAcreateserial",
      "-out",
      `${dir}/${name}.crt`,
      "-days",
      "2",
      ...ext,
    )
  }
}

const registryConfig = (dir: string, name: string, addr: string, auth: string) =>
  `version: 0.1
log:
  level: info
storage:
  filesystem:
    rootdirectory: ${dir}/${name}-data
  delete:
    enabled: true
http:
  addr: ${addr}
  tls:
    certificate: ${dir}/server.crt
    key: ${dir}/server.key
auth:
${auth}`

/** Starts `cmd` in `ns` with its output in `log`, and waits for `ready` in that output. */
async function startIn(ns: string, cmd: string[], log: string, ready: string) {
  const proc = Bun.spawn(["ip", "netns", "exec", ns, ...cmd], { stdout: Bun.file(log), stderr: Bun.file(`${log}.err`) })
  const text = async () =>
    `${await Bun.file(log)
      .text()
      .catch(() => "")}${await Bun.file(`${log}.err`)
      .text()
      .catch(() => "")}`
  for (let i = 0; i < 400 && proc.exitCode === null && !(await text()).includes(ready); i++) await Bun.sleep(25)
  if (!(await text()).includes(ready)) throw new Error(`${cmd.join(" ")} did not start: ${await text()}`)
  return proc
}

/** The three registries and the token service in namespace `ns`, on `address`. */
export async function privateRegistries(ns: string, address: string): Promise<PrivateRegistries> {
  const dir = mkdtempSync(join(tmpdir(), "hm-private-registry-"))
  await pki(dir, address)
  const users = {
    basic: { username: "alice", password: "b4sic-Pw-6f1e93" },
    token: { username: "bob", password: "t0ken-Pw-27ac51" },
  }
  writeFileSync(
    `${dir}/htpasswd`,
    `${users.basic.username}:${await Bun.password.hash(users.basic.password, { algorithm: "bcrypt", cost: 4 })}\n`,
  )
  const hostOf = (port: number) => `${address}:${port}`
  const tokenService = `http://${hostOf(PORTS.tokenService)}`
  writeFileSync(
    `${dir}/basic.yml`,
    registryConfig(dir, "basic", hostOf(PORTS.basic), `  htpasswd:\n    realm: hm-test\n    path: ${dir}/htpasswd\n`),
  )
  writeFileSync(
    `${dir}/token.yml`,
    registryConfig(
      dir,
      "token",
      hostOf(PORTS.token),
      `  token:\n    realm: ${tokenService}/token\n    service: hm-test-registry\n    issuer: hm-test-issuer\n    rootcertbundle: ${dir}/ca.crt\n`,
    ),
  )
  writeFileSync(
    `${dir}/side.json`,
    JSON.stringify({
      token: {
        addr: address,
        port: PORTS.tokenService,
        key: `${dir}/signer.key`,
        cert: `${dir}/signer.crt`,
        issuer: "hm-test-issuer",
        user: users.token.username,
        password: users.token.password,
      },
      proxy: {
        addr: address,
        port: PORTS.limited,
        key: `${dir}/server.key`,
        cert: `${dir}/server.crt`,
        ca: `${dir}/ca.crt`,
        upstream: hostOf(PORTS.basic),
        remaining: 100,
      },
    }),
  )
  let starts = 0
  const registry = (name: string) =>
    startIn(ns, ["docker-registry", "serve", `${dir}/${name}.yml`], `${dir}/${name}-${starts++}.log`, "listening on")
  const procs = {
    basic: await registry("basic"),
    token: await registry("token"),
    side: await startIn(
      ns,
      ["bun", join(import.meta.dir, "registry-side.ts"), `${dir}/side.json`],
      `${dir}/side.log`,
      "listening",
    ),
  }
  const ca = await Bun.file(`${dir}/ca.crt`).text()
  const control = async (url: string, body: unknown) => {
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
      tls: { ca },
    } as RequestInit)
    if (!res.ok) throw new Error(`${url}: ${res.status}`)
  }
  return {
    basic: hostOf(PORTS.basic),
    token: hostOf(PORTS.token),
    limited: hostOf(PORTS.limited),
    tokenService,
    ca,
    users,
    setRemaining: (n) => control(`https://${hostOf(PORTS.limited)}/control`, { remaining: n }),
    setExpired: (expired) => control(`${tokenService}/control`, { expired }),
    async setBasicUp(up) {
      if (!up) {
        procs.basic.kill()
        await procs.basic.exited
      } else procs.basic = await registry("basic")
    },
    trust(dockerHost) {
      const etc = join(dirname(dockerHost.replace(/^unix:\/\//, "")), "etc-docker", "certs.d")
      for (const port of [PORTS.basic, PORTS.token, PORTS.limited]) {
        mkdirSync(join(etc, hostOf(port)), { recursive: true })
        writeFileSync(join(etc, hostOf(port), "ca.crt"), ca)
      }
    },
    async stop() {
      for (const p of Object.values(procs)) {
        p.kill()
        await p.exited
      }
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
