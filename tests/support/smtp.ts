// A real SMTP server on loopback for the tests (tests/support/smtp-server.py on Debian's
// python3-aiosmtpd): STARTTLS or implicit TLS with a certificate of a test authority, AUTH of one
// user, the mails it accepted kept. The service trusts the authority through NODE_EXTRA_CA_CERTS.
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { freePort } from "./service.ts"

export interface Mail {
  from: string
  to: string[]
  tls: boolean
  authenticated: boolean
  data: string
}

export interface SmtpServer {
  port: number
  /** The test authority's certificate: trust it with NODE_EXTRA_CA_CERTS. */
  ca: string
  mails: Mail[]
  stop(): Promise<void>
}

export const SMTP_USER = "alerts@hm.test"
export const SMTP_PASSWORD = "smtp-Secret_pw9"

/** A test authority and a certificate it signed for 127.0.0.1, in a folder of their own. */
async function certificates(dir: string): Promise<void> {
  const run = async (...args: string[]) => {
    const p = Bun.spawn(["openssl", ...args], { cwd: dir, stdout: "ignore", stderr: "pipe" })
    if ((await p.exited) !== 0) throw new Error(`openssl ${args[0]}: ${await new Response(p.stderr).text()}`)
  }
  await run(
    "req",
    "-x509",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-keyout",
    "ca.key",
    "-out",
    "ca.pem",
    "-days",
    "1",
    "-subj",
    "/CN=hm test mail CA",
  )
  await run("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "key.pem", "-out", "req.pem", "-subj", "/CN=127.0.0.1")
  await Bun.write(join(dir, "ext.cnf"), "subjectAltName=IP:127.0.0.1,DNS:localhost\n")
  await run(
    "x509",
    "-req",
    "-in",
    "req.pem",
    "-CA",
    "ca.pem",
    "-CAkey",
    "ca.key",
    "-CAcreateserial",
    "-out",
    "cert.pem",
    "-days",
    "1",
    "-extfile",
    "ext.cnf",
  )
}

export async function startSmtp(opts: { implicit?: boolean } = {}): Promise<SmtpServer> {
  const dir = mkdtempSync(join(tmpdir(), "hm-smtp-"))
  await certificates(dir)
  const port = await freePort()
  const proc = Bun.spawn(
    [
      "/usr/bin/python3",
      join(import.meta.dir, "smtp-server.py"),
      "--port",
      String(port),
      "--cert",
      join(dir, "cert.pem"),
      "--key",
      join(dir, "key.pem"),
      "--user",
      SMTP_USER,
      "--password",
      SMTP_PASSWORD,
      ...(opts.implicit ? ["--implicit"] : []),
    ],
    { stdin: "pipe", stdout: "pipe", stderr: "ignore" },
  )
  const mails: Mail[] = []
  let ready: () => void = () => {}
  const started = new Promise<void>((r) => (ready = r))
  void (async () => {
    let buf = ""
    for await (const chunk of proc.stdout) {
      buf += new TextDecoder().decode(chunk)
      for (let i = buf.indexOf("\n"); i !== -1; i = buf.indexOf("\n")) {
        const line = JSON.parse(buf.slice(0, i))
        buf = buf.slice(i + 1)
        if (line.ready) ready()
        else mails.push(line)
      }
    }
  })()
  await Promise.race([
    started,
    proc.exited.then(() => {
      throw new Error("the SMTP server did not start (is python3-aiosmtpd installed? bash scripts/setup.sh test)")
    }),
  ])
  return {
    port,
    ca: join(dir, "ca.pem"),
    mails,
    async stop() {
      proc.stdin.end()
      await Promise.race([proc.exited, Bun.sleep(3000).then(() => proc.kill())])
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
