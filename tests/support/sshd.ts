// A real OpenSSH server on loopback for the git stacks' ssh test (scripts/sshd.sh unpacks it). sshd
// as root wants its privilege separation user and /run/sshd, which this host need not have: it runs
// in a mount namespace of its own with a tmpfs on /run and a passwd file that adds the user, so the
// host is left as it was. It lets root in with one generated key; git runs as root's commands.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

export interface Sshd {
  port: number
  /** The private key the server lets in (OpenSSH text). */
  clientKey: string
  /** known_hosts lines for the server's key. */
  knownHosts: string
  /** An ssh URL of a repository at `path` on this host. */
  url(path: string): string
  stop(): void
}

const run = async (cmd: string[]) => {
  const p = Bun.spawn(cmd, { stdout: "pipe", stderr: "pipe" })
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited])
  if (code !== 0) throw new Error(`${cmd.join(" ")}: ${err}`)
  return out.trim()
}

async function freePort(): Promise<number> {
  const s = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } })
  const port = s.port
  s.stop(true)
  return port
}

export async function startSshd(): Promise<Sshd> {
  const root = await run(["bash", join(import.meta.dir, "../../scripts/sshd.sh")])
  const dir = mkdtempSync(join(tmpdir(), "hm-sshd-"))
  await run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "", "-f", join(dir, "host")])
  await run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "", "-f", join(dir, "client")])
  writeFileSync(join(dir, "authorized_keys"), await Bun.file(join(dir, "client.pub")).text())
  writeFileSync(
    join(dir, "passwd"),
    `${await Bun.file("/etc/passwd").text()}sshd:x:65534:65534::/run/sshd:/usr/sbin/nologin\n`,
  )
  const port = await freePort()
  writeFileSync(
    join(dir, "sshd_config"),
    [
      `Port ${port}`,
      "ListenAddress 127.0.0.1",
      `HostKey ${join(dir, "host")}`,
      `AuthorizedKeysFile ${join(dir, "authorized_keys")}`,
      "StrictModes no",
      "UsePAM no",
      "PermitRootLogin prohibit-password",
      "PasswordAuthentication no",
      "KbdInteractiveAuthentication no",
      "PidFile none",
      "",
    ].join("\n"),
  )
  const script = `mount -t tmpfs tmpfs /run && mkdir -m 755 /run/sshd && mount --bind ${join(dir, "passwd")} /etc/passwd && exec ${root}/usr/sbin/sshd -D -e -f ${join(dir, "sshd_config")}`
  const proc = Bun.spawn(["unshare", "--mount", "--propagation", "private", "sh", "-c", script], {
    env: { ...process.env, LD_LIBRARY_PATH: join(root, "usr/lib/x86_64-linux-gnu") },
    stdout: "ignore",
    stderr: "pipe",
  })
  const reader = proc.stderr.getReader()
  let log = ""
  while (!log.includes("Server listening")) {
    const { value, done } = await reader.read()
    if (done) throw new Error(`sshd did not start: ${log}`)
    log += new TextDecoder().decode(value)
  }
  reader.releaseLock()
  void proc.stderr.pipeTo(new WritableStream())
  const hostKey = (await Bun.file(join(dir, "host.pub")).text()).trim()
  return {
    port,
    clientKey: await Bun.file(join(dir, "client")).text(),
    knownHosts: `[127.0.0.1]:${port} ${hostKey}\n`,
    url: (path) => `ssh://root@127.0.0.1:${port}${path}`,
    stop() {
      proc.kill()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
