// Where the secret key comes from: SVC_SECRET_KEY (hex or base64), a systemd credential, the key file
// (made once, 0600, beside the data directory, two starts at once agreeing on one); a key file others
// may read, one inside the data directory, or a key that is not 32 bytes is refused.
import { afterAll, expect, test } from "bun:test"
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { defaultKeyFile, loadKeys, parseKey, writeKeyFile } from "#lib/data/secret-key.ts"
import { newSecretKey } from "#lib/data/sealed.ts"

const base = mkdtempSync(join(tmpdir(), "hm-key-"))
afterAll(() => rmSync(base, { recursive: true, force: true }))
const dataDir = join(base, "data")
const file = defaultKeyFile(dataDir)

test("the first start makes the key file beside the data directory (0600); later starts read it", () => {
  expect(file).toBe(`${dataDir}.key`)
  const first = loadKeys({ dataDir, file })
  expect(first.made).toBe(true)
  expect(statSync(file).mode & 0o777).toBe(0o600)
  expect(readFileSync(file, "utf8")).toMatch(/^[0-9a-f]{64}\n$/)
  const again = loadKeys({ dataDir, file })
  expect([again.made, again.current.id]).toEqual([false, first.current.id])
  // Two starts at once: the second finds the first's file and writes none of its own.
  expect(writeKeyFile(file, newSecretKey())).toBe(false)
  expect(loadKeys({ dataDir, file }).current.id).toBe(first.current.id)
})

test("SVC_SECRET_KEY (hex or base64) outranks the credential, which outranks the key file", () => {
  const key = newSecretKey()
  const hex = Buffer.from(key.bytes).toString("hex")
  const b64 = Buffer.from(key.bytes).toString("base64")
  expect(loadKeys({ dataDir, file, key: hex }).current.id).toBe(key.id)
  expect(loadKeys({ dataDir, file, key: b64 }).current.id).toBe(key.id)
  const creds = join(base, "creds")
  mkdirSync(creds)
  const other = newSecretKey()
  writeFileSync(join(creds, "secret-key"), Buffer.from(other.bytes).toString("hex"))
  writeFileSync(join(creds, "secret-key-previous"), hex)
  const fromCredential = loadKeys({ dataDir, file, credentials: creds })
  expect([fromCredential.current.id, fromCredential.previous.map((k) => k.id)]).toEqual([other.id, [key.id]])
  expect(fromCredential.source).toContain("credential")
  expect(loadKeys({ dataDir, file, key: hex, credentials: creds }).current.id).toBe(key.id)
})

test("a key file others may read, one in the data directory, and a key of the wrong size are refused", () => {
  chmodSync(file, 0o644)
  expect(() => loadKeys({ dataDir, file })).toThrow("may be read by others (mode 644)")
  chmodSync(file, 0o600)
  expect(() => loadKeys({ dataDir, file: join(dataDir, "key") })).toThrow("lies in the data directory")
  expect(() => parseKey("abcd", "SVC_SECRET_KEY")).toThrow("SVC_SECRET_KEY is not a secret key")
  expect(() => loadKeys({ dataDir, file, previous: "nothex" })).toThrow("SVC_SECRET_KEY_PREVIOUS is not a secret key")
})
