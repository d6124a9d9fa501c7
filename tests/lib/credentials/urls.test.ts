import { describe, expect, test } from "bun:test"
import { hideIn, keptFor, maskUrl, originOf } from "#lib/credentials/urls.ts"

describe("maskUrl", () => {
  test.each([
    ["rest:http://user:pa55word@host:8000/", "rest:http://user:***@host:8000/"],
    ["https://user:p%40ss@git.example.com/x.git", "https://user:***@git.example.com/x.git"],
    ["https://ghp_abcdef123456@github.com/o/r.git", "https://***@github.com/o/r.git"],
    ["https://a:b@c@host/p", "https://a:***@host/p"],
    ["s3:https://minio:9000/bucket", "s3:https://minio:9000/bucket"],
    ["ntfy+https://u:tok@ntfy.sh/topic", "ntfy+https://u:***@ntfy.sh/topic"],
    ["https://hooks.example.com/x?token=abc&mode=1", "https://hooks.example.com/x?token=***&mode=1"],
    ["https://h/x?X-Amz-Signature=9f&access_key=AK&page=2", "https://h/x?X-Amz-Signature=***&access_key=***&page=2"],
    ["ssh://git@host:2222/x.git", "ssh://git@host:2222/x.git"],
    ["ssh://git:secret@host/x.git", "ssh://git:***@host/x.git"],
    ["sftp://backup@host//srv/restic", "sftp://backup@host//srv/restic"],
    ["git@github.com:o/r.git", "git@github.com:o/r.git"],
    ["sftp:user@host:/srv/restic", "sftp:user@host:/srv/restic"],
    ["/srv/restic", "/srv/restic"],
    ["rclone:remote:path", "rclone:remote:path"],
  ])("%s is shown as %s", (url, shown) => expect(maskUrl(url)).toBe(shown))

  test("a webhook whose path is its secret shows its origin only", () => {
    expect(maskUrl("https://hooks.example.com/services/T0/B0/XyZ", { path: "hide" })).toBe(
      "https://hooks.example.com/***",
    )
    expect(maskUrl("https://u:p@hooks.example.com/", { path: "hide" })).toBe("https://u:***@hooks.example.com/")
  })
})

describe("hideIn", () => {
  const url = "rest:http://backup:Sup3rSecret@127.0.0.1:8000/"
  test("takes the URL's credentials out of a message, as given, rewritten or decoded", () => {
    const message =
      "Fatal: unable to open repo at rest:http://backup:Sup3rSecret@127.0.0.1:8000/: http://backup:Sup3rSecret@127.0.0.1:8000/config 401; password Sup3rSecret"
    const hidden = hideIn(message, url)
    expect(hidden).not.toContain("Sup3rSecret")
    expect(hidden).toContain("rest:http://backup:***@127.0.0.1:8000/")
    expect(hidden).toContain("http://backup:***@127.0.0.1:8000/config")
  })
  test("a percent-encoded password is taken out in both forms", () => {
    const hidden = hideIn("p@ss! and p%40ss%21", "https://u:p%40ss%21@h/")
    expect(hidden).toBe("*** and ***")
  })
  test("a short secret is hidden where it stands in a URL, not in every word", () => {
    expect(hideIn("user u at https://u:ab@h/ said abba", "https://u:ab@h/")).toBe(
      "user u at https://u:***@h/ said abba",
    )
  })
})

describe("originOf", () => {
  test.each([
    ["https://git.example.com/a.git", "https://git.example.com/b.git", true],
    ["https://GIT.example.com:443/a.git", "https://git.example.com/b.git", true],
    ["https://git.example.com/a.git", "https://git.example.com.evil.io/a.git", false],
    ["https://git.example.com/a.git", "http://git.example.com/a.git", false],
    ["https://git.example.com/a.git", "https://git.example.com:8443/a.git", false],
    ["https://git.example.com/a.git", "https://x@evil.io/git.example.com/a.git", false],
    ["https://evil.io#@git.example.com/a.git", "https://git.example.com/a.git", false],
    ["ssh://git@host/a.git", "git@host:b.git", true],
    ["ssh://git@host/a.git", "ssh://other@host/a.git", false],
    ["ssh://git@host/a.git", "ssh://git@host:2222/a.git", false],
    ["rest:http://u:p@h:8000/", "rest:http://h:8000/other", true],
    ["rest:http://h:8000/", "s3:http://h:8000/", false],
    ["/srv/a", "/srv/b", true],
    ["/srv/a", "https://h/", false],
  ])("%s and %s: same origin %p", (a, b, same) => expect(originOf(a) === originOf(b)).toBe(same))
})

describe("keptFor", () => {
  const before = { url: "https://git.example.com/a.git", credential: "tok" }
  test("the stored credential stays on the same origin", () =>
    expect(keptFor(before, { url: "https://git.example.com/b.git", given: undefined })).toBe("tok"))
  test("a change of origin without the credential drops it", () => {
    expect(keptFor(before, { url: "https://other.example.com/a.git", given: undefined })).toBeUndefined()
    expect(keptFor(before, { url: "https://other.example.com/a.git", given: null })).toBeUndefined()
  })
  test("a credential given goes with the new URL; an empty one removes it", () => {
    expect(keptFor(before, { url: "https://other.example.com/a.git", given: "new" })).toBe("new")
    expect(keptFor(before, { url: "https://git.example.com/a.git", given: "" })).toBeUndefined()
  })
  test("nothing stored, nothing kept", () =>
    expect(keptFor(undefined, { url: "https://git.example.com/a.git", given: undefined })).toBeUndefined())
})
