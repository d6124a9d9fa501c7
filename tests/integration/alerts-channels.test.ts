// Alert channels through the real service against real receivers on loopback: a real SMTP server
// (python3-aiosmtpd) requiring STARTTLS and AUTH, another speaking TLS from the first byte, and
// stand-ins answering as Discord, Slack, Telegram, Gotify, Pushover, Matrix, ntfy and a webhook do.
// Each channel's test arrives; a wrong password is refused in the server's words without the
// password; no credential shows in any answer, event or line the service logged.
import { afterAll, beforeAll, expect, test } from "bun:test"
import { mkdtempSync, rmSync, writeFileSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ALL_SECRETS, channelUrls, startReceivers, type Receivers } from "../support/receivers.ts"
import { startService, type Service } from "../support/service.ts"
import { SMTP_PASSWORD, SMTP_USER, startSmtp, type SmtpServer } from "../support/smtp.ts"

let service: Service
let r: Receivers
let starttls: SmtpServer
let implicit: SmtpServer
let dir: string
const logs: string[] = []

beforeAll(async () => {
  r = startReceivers()
  ;[starttls, implicit] = await Promise.all([startSmtp(), startSmtp({ implicit: true })])
  dir = mkdtempSync(join(tmpdir(), "hm-ca-"))
  const bundle = join(dir, "cas.pem")
  writeFileSync(bundle, readFileSync(starttls.ca, "utf8") + readFileSync(implicit.ca, "utf8"))
  service = await startService({
    NODE_EXTRA_CA_CERTS: bundle,
    SVC_ALERT_API_URLS: `discord=${r.url},slack=${r.url},telegram=${r.url},pushover=${r.url}`,
  })
  for (const stream of [service.proc.stdout, service.proc.stderr] as ReadableStream<Uint8Array>[])
    void (async () => {
      for await (const chunk of stream) logs.push(new TextDecoder().decode(chunk))
    })()
}, 60_000)

afterAll(async () => {
  await service?.stop()
  r?.stop()
  await Promise.all([starttls?.stop(), implicit?.stop()])
  rmSync(dir, { recursive: true, force: true })
})

const api = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${service.url}/api${path}`, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  return { status: res.status, text: await res.text() }
}
const user = encodeURIComponent(SMTP_USER)
const pass = encodeURIComponent(SMTP_PASSWORD)
const mailUrl = (port: number, password = pass, more = "") =>
  `smtp://${user}:${password}@127.0.0.1:${port}/?from=harbormaster@hm.test&to=ops@hm.test,oncall@hm.test${more}`

test("every kind's test arrives at its receiver; e-mail over STARTTLS and over implicit TLS, authenticated", async () => {
  const urls = {
    ...channelUrls(r),
    "mail starttls": mailUrl(starttls.port, pass, "&encryption=explicittls"),
    "mail implicit": mailUrl(implicit.port, pass, "&encryption=implicittls"),
  }
  const shown: string[] = []
  for (const [name, url] of Object.entries(urls)) {
    const added = await api("POST", "/alerts/channels", { name, url })
    expect(added.status).toBe(201)
    const { id } = JSON.parse(added.text)
    const tested = await api("POST", `/alerts/channels/${id}/test`)
    expect([name, JSON.parse(tested.text).error]).toEqual([name, null])
    shown.push(added.text, tested.text)
  }
  for (const server of [starttls, implicit]) {
    expect(server.mails).toHaveLength(1)
    expect(server.mails[0]).toMatchObject({
      from: "harbormaster@hm.test",
      to: ["ops@hm.test", "oncall@hm.test"],
      tls: true,
      authenticated: true,
    })
    expect(server.mails[0]!.data).toContain("Subject: Test from Harbormaster on")
  }
  const kinds = new Set(r.received.map((x) => x.kind))
  for (const k of ["webhook", "ntfy", "gotify", "discord", "slack", "slack-bot", "telegram", "pushover", "matrix"])
    expect(kinds).toContain(k)
  shown.push((await api("GET", "/alerts/channels")).text, (await api("GET", "/alerts/history")).text)
  for (const text of shown) for (const s of [...ALL_SECRETS, SMTP_PASSWORD, pass]) expect(text).not.toContain(s)
}, 60_000)

test("a wrong SMTP password is refused in the server's words, without the password; STARTTLS is required, never skipped", async () => {
  const added = JSON.parse(
    (await api("POST", "/alerts/channels", { name: "bad mail", url: mailUrl(starttls.port, "Wr0ng-pw!") })).text,
  )
  const tested = JSON.parse((await api("POST", `/alerts/channels/${added.id}/test`)).text)
  expect(tested.ok).toBe(false)
  expect(tested.error).toContain("535")
  expect(tested.error).not.toContain("Wr0ng-pw!")
  // No STARTTLS asked: the server refuses AUTH in clear, so nothing goes out unencrypted.
  const clear = JSON.parse(
    (
      await api("POST", "/alerts/channels", {
        name: "clear mail",
        url: mailUrl(starttls.port, pass, "&encryption=none"),
      })
    ).text,
  )
  const refused = JSON.parse((await api("POST", `/alerts/channels/${clear.id}/test`)).text)
  expect(refused.ok).toBe(false)
  expect(starttls.mails).toHaveLength(1)
  expect((await fetch(`${service.url}/api/health`)).status).toBe(200)
}, 60_000)

test("nothing the service logged carries a credential", async () => {
  await Bun.sleep(200)
  const all = logs.join("")
  for (const s of [...ALL_SECRETS, SMTP_PASSWORD, pass, "Wr0ng-pw!"]) expect(all).not.toContain(s)
})
