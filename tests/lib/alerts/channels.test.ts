import { expect, test } from "bun:test"
import { FORMS, KINDS, parseChannelUrl, scrub, urlFromForm } from "#lib/alerts/channels.ts"

const cases: [string, string, string, string[]][] = [
  // [url, kind, masked, secrets that must not be in `masked`]
  ["discord://tok3nSecret@112233445566778899", "discord", "discord://***@112233445566778899", ["tok3nSecret"]],
  [
    "telegram://123456:ABC-DEFsecret@telegram?chats=@ops,-1001",
    "telegram",
    "telegram://123456:***@telegram?chats=@ops,-1001",
    ["ABC-DEFsecret"],
  ],
  [
    "smtp://me:p%40ssw0rd@mail.example:587/?from=a@b.c&to=d@e.f",
    "smtp",
    "smtp://me:***@mail.example:587/?from=a@b.c&to=d@e.f",
    ["p@ssw0rd", "p%40ssw0rd"],
  ],
  [
    "gotify://gotify.example:443/sub/AppT0kenXYZ/?priority=1",
    "gotify",
    "gotify://gotify.example:443/***",
    ["AppT0kenXYZ"],
  ],
  [
    "ntfy://:tk_secretAccess@ntfy.example/private-topic",
    "ntfy",
    "ntfy://:***@ntfy.example/***",
    ["tk_secretAccess", "private-topic"],
  ],
  ["slack://hook:T0001-B0002-hookSecret@webhook", "slack", "slack://hook:***@webhook", ["hookSecret"]],
  ["slack://xoxb:1111-2222-botSecret@C0123", "slack", "slack://xoxb:***@C0123", ["1111-2222-botSecret"]],
  [
    "pushover://shoutrrr:appTokenSecret@userKeySecret/?devices=phone",
    "pushover",
    "pushover://shoutrrr:***@***/?devices=phone",
    ["appTokenSecret", "userKeySecret"],
  ],
  [
    "matrix://bot:matrixPw1@matrix.example/?rooms=!a:b,#ops:b",
    "matrix",
    "matrix://bot:***@matrix.example/?rooms=!a:b,#ops:b",
    ["matrixPw1"],
  ],
  [
    "generic+https://hooks.example/in/pathSecret99?@X-Api-Key=hdrSecret&$env=prod",
    "webhook",
    "generic+https://hooks.example/***",
    ["pathSecret99", "hdrSecret"],
  ],
  [
    "https://user:basicPw@hooks.example/x?token=querySecret",
    "webhook",
    "https://user:***@hooks.example/***",
    ["basicPw", "querySecret"],
  ],
]

// Masked by the service's one masking of kept URLs (lib/credentials/urls.ts), the path hidden where it is the credential.
test.each(cases)("%s reads as its kind, masked without its credentials", (url, kind, masked, secrets) => {
  const t = parseChannelUrl(url)
  expect(t.kind).toBe(kind as never)
  expect(t.masked).toBe(masked)
  for (const s of secrets) {
    expect(t.masked).not.toContain(s)
    expect(scrub(`failed at ${url} with ${s}`, t.secrets)).not.toContain(s)
  }
})

test("each kind's API: its own service, or the one SVC_ALERT_API_URLS names", () => {
  expect(parseChannelUrl("discord://t0ken@1234").base).toBe("https://discord.com")
  expect(parseChannelUrl("telegram://1:abcd@telegram?chats=1", { telegram: "http://127.0.0.1:9" }).base).toBe(
    "http://127.0.0.1:9",
  )
  expect(parseChannelUrl("ntfy://ntfy.sh/x").base).toBe("https://ntfy.sh")
  expect(parseChannelUrl("ntfy+http://10.0.0.1:8080/x").base).toBe("http://10.0.0.1:8080")
  expect(parseChannelUrl("gotify://g.example/tok3n/?disabletls=yes").base).toBe("http://g.example")
  const legacy = parseChannelUrl("slack://T1/B2/X3secret")
  expect(legacy.opts).toMatchObject({ mode: "hook", path: "T1/B2/X3secret" })
})

test("SMTP: implicit TLS on smtps:// and port 465, STARTTLS asked by explicittls, the recipients listed", () => {
  expect(parseChannelUrl("smtps://u:pw12@mail.x/?from=a@b&to=c@d").opts).toMatchObject({
    encryption: "implicittls",
    port: "465",
  })
  expect(parseChannelUrl("smtp://u:pw12@mail.x:465/?from=a@b&to=c@d").opts.encryption).toBe("implicittls")
  const t = parseChannelUrl("smtp://u:pw12@mail.x:587/?from=a@b&to=c@d,e@f&encryption=ExplicitTLS")
  expect(t.opts).toMatchObject({ encryption: "explicittls", host: "mail.x", port: "587", user: "u", password: "pw12" })
  expect(t.list).toEqual(["c@d", "e@f"])
})

test.each([
  ["nonsense", "scheme://"],
  ["ftp://x/y", "not a kind"],
  ["discord://@123", "discord://token@webhook-id"],
  ["telegram://tok@telegram", "chats="],
  ["smtp://mail.x/?to=a@b", "from="],
  ["smtp://u:p@mail.x/?from=a@b&to=c@d&encryption=rot13", "encryption"],
  ["ntfy://ntfy.sh/", "topic"],
  ["slack://hook:onlyone@webhook", "webhook"],
])("%s is refused with what a right one looks like", (url, says) => {
  expect(() => parseChannelUrl(url)).toThrow(says)
})

test("every kind's form makes a URL that reads back as that kind, with the same credentials", () => {
  const fields: Record<string, Record<string, string>> = {
    webhook: { url: "https://hooks.example/a", token: "bearerSecret" },
    ntfy: { host: "ntfy.example", topic: "t0pic", password: "tk_pw" },
    gotify: { host: "g.example", token: "gtoken1" },
    discord: { webhook_id: "1234", token: "dtoken1" },
    slack: { webhook: "T1/B2/secret3" },
    telegram: { token: "123:ABC-def", chats: "@ops" },
    matrix: { host: "m.example", user: "bot", password: "p w/@?" },
    pushover: { token: "ptoken1", user: "pkey1", devices: "phone" },
    smtp: {
      host: "mail.example",
      username: "me",
      password: "p@ss:w/rd",
      from: "a@b.c",
      to: "d@e.f",
      encryption: "explicittls",
    },
  }
  for (const kind of KINDS) {
    const t = parseChannelUrl(urlFromForm(kind, fields[kind]!))
    expect(t.kind).toBe(kind)
    const secret = FORMS[kind].find((f) => f.secret && fields[kind]![f.name])!
    expect(t.secrets.join(" ")).toContain(fields[kind]![secret.name]!)
    expect(t.masked).not.toContain(fields[kind]![secret.name]!)
  }
  expect(parseChannelUrl(urlFromForm("smtp", fields.smtp!)).opts.password).toBe("p@ss:w/rd")
  expect(parseChannelUrl(urlFromForm("matrix", fields.matrix!)).opts.password).toBe("p w/@?")
  expect(() => urlFromForm("smtp", { host: "x" })).toThrow("From is needed")
})
