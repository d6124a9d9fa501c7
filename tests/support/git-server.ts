// A git smart-HTTP server on loopback: Bun handing each request to `git http-backend` as CGI, over
// bare repositories under one folder (pushes allowed). With `token`, a request must carry it as HTTP
// basic authentication's password. `repo` makes a bare repository with a work tree beside it to
// commit and push from, as a person would. Repositories serve partial fetches (uploadpack.allowFilter)
// unless `filter` is false.
import { createWriteStream, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { deflateRawSync, constants as zlib } from "node:zlib"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"

export interface GitServer {
  url: string
  /** Every Authorization header the server was sent. */
  authorizations: string[]
  /** Bytes of the answers' bodies so far. */
  sent(): number
  /** A new repository `name` served at `${url}/${name}.git`, with a work tree to commit from. */
  repo(name: string): Promise<WorkTree>
  stop(): void
}

export interface WorkTree {
  url: string
  dir: string
  /** Writes `files` (path → content; null removes), commits and pushes; the new commit. */
  commit(files: Record<string, string | null>, message?: string): Promise<string>
  /** A plain git command in the work tree; its output. */
  git(...args: string[]): Promise<string>
  /**
   * Commits a file of `mib` MiB of zeros at `path` straight into the served repository (the work tree
   * is left behind: commit nothing more from it); the new commit.
   */
  commitZeros(path: string, mib: number): Promise<string>
}

const env = {
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_AUTHOR_NAME: "T",
  GIT_AUTHOR_EMAIL: "t@t",
  GIT_COMMITTER_NAME: "T",
  GIT_COMMITTER_EMAIL: "t@t",
  PATH: process.env.PATH!,
}

export async function git(cwd: string, ...args: string[]): Promise<string> {
  const p = Bun.spawn(["git", ...args], { cwd, env, stdout: "pipe", stderr: "pipe" })
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited])
  if (code !== 0) throw new Error(`git ${args.join(" ")}: ${err}`)
  return out.trim()
}

/**
 * Writes a real loose blob of `mib` MiB of zeros into the bare repository `bare` without deflating
 * them: one deflate block of 1 MiB of zeros (full flush: it stands alone) repeated, its Adler-32
 * reckoned (zeros leave the first sum as it is); only the SHA-1 reads every byte. Its id.
 */
async function zeroBlob(bare: string, mib: number): Promise<string> {
  const head = Buffer.from(`blob ${mib * 1024 * 1024}\0`)
  const zeros = new Uint8Array(1024 * 1024)
  const sha = new Bun.CryptoHasher("sha1").update(head)
  for (let i = 0; i < mib; i++) sha.update(zeros)
  const oid = sha.digest("hex")
  let a = 1
  let b = 0
  for (const byte of head) {
    a = (a + byte) % 65521
    b = (b + a) % 65521
  }
  b = (b + ((mib * 1024 * 1024) % 65521) * a) % 65521
  const dir = join(bare, "objects", oid.slice(0, 2))
  mkdirSync(dir, { recursive: true })
  const out = createWriteStream(join(dir, oid.slice(2)))
  const block = deflateRawSync(zeros, { finishFlush: zlib.Z_FULL_FLUSH })
  out.write(Buffer.from([0x78, 0x01]))
  out.write(deflateRawSync(head, { finishFlush: zlib.Z_FULL_FLUSH }))
  for (let i = 0; i < mib; i++) out.write(block)
  out.write(deflateRawSync(new Uint8Array(0)))
  const adler = Buffer.alloc(4)
  adler.writeUInt32BE(((b << 16) | a) >>> 0)
  await new Promise<void>((resolve, reject) => out.end(adler, () => resolve()).on("error", reject))
  return oid
}

/** The CGI answer's headers and body. */
function cgiResponse(out: Uint8Array): Response {
  const text = Buffer.from(out)
  const end = text.indexOf("\r\n\r\n") >= 0 ? text.indexOf("\r\n\r\n") + 4 : text.indexOf("\n\n") + 2
  const headers = new Headers()
  let status = 200
  for (const line of text.subarray(0, end).toString().split(/\r?\n/).filter(Boolean)) {
    const i = line.indexOf(":")
    const [k, v] = [line.slice(0, i).trim(), line.slice(i + 1).trim()]
    if (k.toLowerCase() === "status") status = Number(v.split(" ")[0])
    else headers.append(k, v)
  }
  return new Response(text.subarray(end), { status, headers })
}

/** `hostname`: the address it listens on (default loopback), such as a veth's host end for a service in a namespace. */
export function startGitServer(opts: { token?: string; filter?: boolean; hostname?: string } = {}): GitServer {
  const root = mkdtempSync(join(tmpdir(), "hm-git-srv-"))
  const authorizations: string[] = []
  let sent = 0
  const server = Bun.serve({
    hostname: opts.hostname ?? "127.0.0.1",
    port: 0,
    async fetch(req) {
      const u = new URL(req.url)
      const auth = req.headers.get("authorization")
      if (auth) authorizations.push(auth)
      if (opts.token && auth !== `Basic ${Buffer.from(`x-access-token:${opts.token}`).toString("base64")}`)
        return new Response("no", { status: 401, headers: { "WWW-Authenticate": 'Basic realm="git"' } })
      const p = Bun.spawn(["git", "http-backend"], {
        env: {
          ...env,
          GIT_PROJECT_ROOT: root,
          GIT_HTTP_EXPORT_ALL: "1",
          PATH_INFO: decodeURIComponent(u.pathname),
          QUERY_STRING: u.search.slice(1),
          REQUEST_METHOD: req.method,
          CONTENT_TYPE: req.headers.get("content-type") ?? "",
          HTTP_CONTENT_ENCODING: req.headers.get("content-encoding") ?? "",
          GIT_PROTOCOL: req.headers.get("git-protocol") ?? "",
          REMOTE_USER: "test",
          REMOTE_ADDR: "127.0.0.1",
        },
        stdin: new Uint8Array(await req.arrayBuffer()),
        stdout: "pipe",
        stderr: "ignore",
      })
      const out = await new Response(p.stdout).bytes()
      sent += out.length
      return cgiResponse(out)
    },
  })
  const url = `http://${opts.hostname ?? "127.0.0.1"}:${server.port}`
  return {
    url,
    authorizations,
    sent: () => sent,
    async repo(name) {
      const bare = join(root, `${name}.git`)
      mkdirSync(bare, { recursive: true })
      await git(bare, "init", "-q", "--bare", "-b", "main")
      await git(bare, "config", "http.receivepack", "true")
      await git(bare, "config", "uploadpack.allowFilter", String(opts.filter ?? true))
      const dir = mkdtempSync(join(tmpdir(), `hm-git-wt-`))
      await git(dir, "init", "-q", "-b", "main")
      const remote = opts.token ? url.replace("//", `//x-access-token:${opts.token}@`) : url
      await git(dir, "remote", "add", "origin", `${remote}/${name}.git`)
      const tree: WorkTree = {
        url: `${url}/${name}.git`,
        dir,
        git: (...args) => git(dir, ...args),
        async commitZeros(path, mib) {
          const blob = await zeroBlob(bare, mib)
          const index = join(dir, ".git", "zeros-index")
          const run = async (...args: string[]) => {
            const p = Bun.spawn(["git", ...args], {
              cwd: bare,
              env: { ...env, GIT_INDEX_FILE: index },
              stdout: "pipe",
              stderr: "pipe",
            })
            const [out, err, code] = await Promise.all([
              new Response(p.stdout).text(),
              new Response(p.stderr).text(),
              p.exited,
            ])
            if (code !== 0) throw new Error(`git ${args.join(" ")}: ${err}`)
            return out.trim()
          }
          await run("read-tree", "main")
          await run("update-index", "--add", "--cacheinfo", `100644,${blob},${path}`)
          const commit = await run("commit-tree", await run("write-tree"), "-p", "main", "-m", `${mib} MiB of zeros`)
          await run("update-ref", "refs/heads/main", commit)
          rmSync(index, { force: true })
          return commit
        },
        async commit(files, message = "change") {
          for (const [p, content] of Object.entries(files)) {
            if (content === null) rmSync(join(dir, p), { force: true })
            else {
              mkdirSync(dirname(join(dir, p)), { recursive: true })
              writeFileSync(join(dir, p), content)
            }
          }
          await git(dir, "add", "-A")
          await git(dir, "commit", "-q", "--allow-empty", "-m", message)
          await git(dir, "push", "-q", "origin", "HEAD:main")
          return git(dir, "rev-parse", "HEAD")
        },
      }
      return tree
    },
    stop() {
      server.stop(true)
      rmSync(root, { recursive: true, force: true })
    },
  }
}
