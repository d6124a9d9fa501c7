// The one way the service runs `git`: a locked-down environment (no system or user configuration, an
// empty HOME, no prompt, no hooks, no submodules, only the repository's own protocol allowed), a
// deadline and the caller's signal (lib/engine/spawn.ts). Configuration goes through GIT_CONFIG_*
// variables, so nothing of it (a credential header) is on a command line another process can read.
// Over ssh, a network command (fetch, ls-remote, push) gets a folder of its own for the run: the
// private key in a 0600 file and the known hosts, both removed when git ends; ssh reads no
// configuration of the host's, offers that key only, and checks the server's key against the known
// hosts given (StrictHostKeyChecking=yes), or, with none given, accepts the first key it sees
// (accept-new) and hands it back to be kept, so a later change of key is refused.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { spawnBounded } from "../engine/spawn.ts"
import { canceled, invalid, timedOut, upstream } from "../errors/errors.ts"

/** The protocols a repository may be fetched with; `file` serves a local path (tests, a mirror on the host). */
export const PROTOCOLS = ["https", "http", "ssh", "file"] as const
export type Protocol = (typeof PROTOCOLS)[number]

export interface GitRun {
  /** The repository folder git works in. */
  cwd: string
  /** The one protocol allowed for this run. */
  protocol: Protocol
  /** A token sent as HTTP basic authentication (never in the URL). */
  token?: string
  /** Seconds the command may run. */
  timeout?: number
  signal?: AbortSignal
  stdin?: Uint8Array
  /** More environment (an index file, a commit's author), beside the locked-down one. */
  env?: Record<string, string>
  /** The ssh side of an ssh URL's network commands. */
  ssh?: SshAuth
  /** The largest file (bytes) the command and its children may write: a fetch's pack (prlimit's RLIMIT_FSIZE); past it git is killed. */
  fileBytes?: number
  /**
   * `host:port:address` entries git's HTTP transport connects to instead of resolving the host
   * (`http.curloptResolve`): an address checked before git runs is the one it reaches.
   */
  resolve?: string[]
}

export interface SshAuth {
  /** A private key (OpenSSH or PEM text); a secret. */
  key?: string
  /** known_hosts lines for the server; empty: the first key seen is accepted and handed to `learned`. */
  knownHosts: string
  /** Called with the known hosts ssh wrote when it accepted a new key. */
  learned?: (knownHosts: string) => void | Promise<void>
}

export interface GitResult {
  code: number
  stdout: Uint8Array
  stderr: string
}

/** An empty HOME of the service's own, made once. */
let home: string | undefined
const emptyHome = () => (home ??= mkdtempSync(join(tmpdir(), "hm-git-home-")))

/** The protocol of a repository URL (400 `invalid_git_url` for one not allowed). */
export function protocolOf(url: string): Protocol {
  if (url.startsWith("/")) return "file"
  const scp = /^[\w.-]+@[\w.-]+:/.test(url)
  if (scp) return "ssh"
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url)?.[1]?.toLowerCase()
  if (scheme && (PROTOCOLS as readonly string[]).includes(scheme)) return scheme as Protocol
  throw invalid(
    "the repository URL must be https://, http://, ssh://, user@host:path or an absolute path",
    "invalid_git_url",
  )
}

/** The locked-down configuration of one run, as GIT_CONFIG_* variables. */
export function gitEnv(run: Pick<GitRun, "protocol" | "token" | "resolve">): Record<string, string> {
  const config: [string, string][] = [
    ["core.hooksPath", "/dev/null"],
    ["core.symlinks", "false"],
    ["core.fsmonitor", "false"],
    ["protocol.allow", "never"],
    [`protocol.${run.protocol}.allow`, "always"],
    ["submodule.recurse", "false"],
    ["fetch.recurseSubmodules", "false"],
    ["credential.helper", ""],
    ["http.followRedirects", "false"],
    ["transfer.fsckObjects", "true"],
    // A fetch always keeps one pack (no loose objects), so the bound on the file size bounds it all.
    ["fetch.unpackLimit", "1"],
  ]
  for (const entry of run.resolve ?? []) config.push(["http.curloptResolve", entry])
  if (run.token)
    config.push([
      "http.extraHeader",
      `Authorization: Basic ${Buffer.from(`x-access-token:${run.token}`).toString("base64")}`,
    ])
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: emptyHome(),
    XDG_CONFIG_HOME: emptyHome(),
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_TERMINAL_PROMPT: "0",
    GIT_LITERAL_PATHSPECS: "1",
    GIT_ASKPASS: "/bin/false",
    // A partial fetch leaves large blobs out; nothing may fetch them later behind the service's back.
    GIT_NO_LAZY_FETCH: "1",
    SSH_ASKPASS: "/bin/false",
    // ssh runs only as a network command sets it (runGit), never with the host's keys or configuration.
    GIT_SSH_COMMAND: "false",
    GIT_CONFIG_COUNT: String(config.length),
  }
  config.forEach(([k, v], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = k
    env[`GIT_CONFIG_VALUE_${i}`] = v
  })
  return env
}

/** The ssh command git runs for one network command, with the key and known hosts files in `dir`. */
export function sshCommand(dir: string, opts: { key: boolean; strict: boolean }): string {
  const q = (s: string) => `'${s.replaceAll("'", "'\\''")}'`
  return [
    "ssh -F /dev/null -o LogLevel=ERROR -o BatchMode=yes -o IdentitiesOnly=yes -o IdentityAgent=none -o PasswordAuthentication=no -o KbdInteractiveAuthentication=no",
    "-o ForwardAgent=no -o ClearAllForwardings=yes -o PermitLocalCommand=no -o UpdateHostKeys=no -o GlobalKnownHostsFile=/dev/null",
    `-o UserKnownHostsFile=${q(join(dir, "known_hosts"))}`,
    `-o StrictHostKeyChecking=${opts.strict ? "yes" : "accept-new"}`,
    opts.key ? `-o IdentityFile=${q(join(dir, "key"))}` : "-o IdentityFile=none",
  ].join(" ")
}

const NETWORK = new Set(["fetch", "ls-remote", "push"])

/** Runs `git args` (see the module's comment); its exit code, output and error text. */
export async function runGit(args: string[], run: GitRun): Promise<GitResult> {
  const ssh = run.protocol === "ssh" && NETWORK.has(args[0]!) ? (run.ssh ?? { knownHosts: "" }) : undefined
  const sshDir = ssh ? mkdtempSync(join(tmpdir(), "hm-git-ssh-")) : undefined
  try {
    const env = { ...run.env, ...gitEnv(run) }
    if (ssh && sshDir) {
      if (ssh.key)
        writeFileSync(join(sshDir, "key"), ssh.key.endsWith("\n") ? ssh.key : `${ssh.key}\n`, {
          mode: 0o600,
          flag: "wx",
        })
      writeFileSync(join(sshDir, "known_hosts"), ssh.knownHosts, { mode: 0o600, flag: "wx" })
      env.GIT_SSH_COMMAND = sshCommand(sshDir, { key: !!ssh.key, strict: !!ssh.knownHosts.trim() })
    }
    const cmd = run.fileBytes ? ["prlimit", `--fsize=${run.fileBytes}`, "--", "git", ...args] : ["git", ...args]
    const bounded = spawnBounded(
      cmd,
      { cwd: run.cwd, env, stdin: run.stdin ?? "ignore", stdout: "pipe", stderr: "pipe" },
      { timeout: run.timeout ?? 120, signal: run.signal },
    )
    const [stdout, stderr, code] = await Promise.all([
      new Response(bounded.proc.stdout).bytes(),
      new Response(bounded.proc.stderr).text(),
      bounded.exited,
    ])
    const stopped = bounded.stopped()
    if (stopped === "timeout") throw timedOut(`git ${args[0]} took too long`, "git_timeout")
    if (stopped === "aborted") throw canceled(`git ${args[0]} was stopped: its caller went away`, "git_aborted")
    if (ssh && sshDir && !ssh.knownHosts.trim()) {
      const learned = readFileSync(join(sshDir, "known_hosts"), "utf8")
      if (learned.trim()) await ssh.learned?.(learned)
    }
    return { code, stdout, stderr }
  } finally {
    if (sshDir) rmSync(sshDir, { recursive: true, force: true })
  }
}

/** Runs `git args`; a non-zero exit is 502 `git_failed` with git's last line (a URL in it without its user part). */
export async function mustGit(args: string[], run: GitRun): Promise<Uint8Array> {
  const r = await runGit(args, run)
  if (r.code !== 0) throw upstream(`git ${args[0]} failed: ${lastLine(r.stderr)}`, "git_failed")
  return r.stdout
}

/** git's last error lines (ssh's reason before git's own; no warnings, hints or git's advice about access rights), user parts of URLs taken out. */
export const lastLine = (text: string) =>
  text
    .replace(/\n*Please make sure you have the correct access rights\nand the repository exists\.\s*$/, "")
    .trim()
    .split("\n")
    .filter((l) => l.trim() && !/^(warning|hint)\b/i.test(l))
    .slice(-2)
    .join(" ")
    .replace(/\/\/[^/@\s]*@/g, "//")
    .slice(0, 500)
