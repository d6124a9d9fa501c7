// E-mail over SMTP through nodemailer (maintained, no dependencies of its own, works under Bun:
// STARTTLS, implicit TLS and AUTH were checked against a real SMTP server). Loaded by the first mail:
// a service that sends none never loads it. Every step has a deadline, and the connection is closed
// when the send is abandoned, so a mail server that stops answering holds nothing up.
import nodemailer from "nodemailer"
import type { Target } from "./channels.ts"

const DEADLINE_MS = 15_000

/** The transport's options from the address: `auto` takes STARTTLS when offered (on 465, TLS from the start), `explicittls` requires it, `none` never uses it. */
export function transportOptions(t: Target) {
  const o = t.opts
  const implicit = o.encryption === "implicittls"
  const auth = o.user && o.auth !== "none" ? { user: o.user, pass: o.password ?? "" } : undefined
  return {
    host: o.host!,
    port: Number(o.port),
    secure: implicit,
    requireTLS: o.encryption === "explicittls",
    ignoreTLS: o.encryption === "none" || (o.encryption === "auto" && !o.starttls),
    auth,
    authMethod:
      o.auth === "login" ? "LOGIN" : o.auth === "plain" ? "PLAIN" : o.auth === "crammd5" ? "CRAM-MD5" : undefined,
    connectionTimeout: DEADLINE_MS,
    greetingTimeout: DEADLINE_MS,
    socketTimeout: DEADLINE_MS,
    disableFileAccess: true,
    disableUrlAccess: true,
  }
}

/** What a mail says (a message of send.ts). */
interface Mail {
  title: string
  text: string
  server: string
  time: string
}

export async function sendMail(t: Target, m: Mail, signal: AbortSignal): Promise<void> {
  const transport = nodemailer.createTransport(transportOptions(t))
  const stop = () => transport.close()
  signal.addEventListener("abort", stop, { once: true })
  try {
    const from = t.opts.fromname ? { name: t.opts.fromname, address: t.opts.from! } : t.opts.from!
    await transport.sendMail({
      from,
      to: t.list,
      subject: t.opts.subject ? `${t.opts.subject}: ${m.title}` : m.title,
      text: `${m.text}\n\n— Harbormaster on ${m.server}, ${m.time}\n`,
    })
  } finally {
    signal.removeEventListener("abort", stop)
    transport.close()
  }
}
