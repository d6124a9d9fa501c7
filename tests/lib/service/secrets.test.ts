// The start seals the data directory's secrets: a directory an earlier release wrote (plain env.json,
// versions, cluster.json, the plain .env beside the records) comes out sealed with the key, the .env
// gone, every value the same. A rotation (`secret-key rotate`) keeps the old key as <key file>.previous
// and makes a new one; the next start seals every file with the new key, each still opening to what it
// held. Files of a stack's folder (its containers' ground) are never touched.
import { afterAll, expect, test } from "bun:test"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { defaultKeyFile } from "#lib/data/secret-key.ts"
import { currentKeyId, isSealed, readOpened, sealedWith } from "#lib/data/sealed.ts"
import { openSecrets, secretKeyCommand } from "#lib/service/secrets.ts"

const base = mkdtempSync(join(tmpdir(), "hm-secrets-"))
afterAll(() => rmSync(base, { recursive: true, force: true }))
const dataDir = join(base, "data")
const settings = { dataDir, file: defaultKeyFile(dataDir) }
const plain = {
  "records/shop/env.json": '[{"key":"DB_PASSWORD","value":"s3cret-one","secret":true}]\n',
  "records/shop/run.json": '{"services":{"db":{"environment":{"DB_PASSWORD":"s3cret-one"}}}}\n',
  "records/shop/versions/1.json": '{"version":1,"env":[{"key":"DB_PASSWORD","value":"s3cret-one"}]}\n',
  "records/shop/git.json": '{"url":"https://git.example/x.git","token":"tok-123"}\n',
  "cluster.json": '{"role":"control-plane","token":"cluster-tok"}\n',
  "backups/repos.json": '[{"name":"nas","password":"restic-pw"}]\n',
  "records/shop/state.json": '{"current_version":1}\n',
  "stacks/shop/env.json": "the stack's own data, not ours\n",
}

test("a data directory of an earlier release is sealed at start, its plain env files removed; a rotation seals it anew", () => {
  for (const [path, text] of Object.entries(plain)) {
    mkdirSync(join(dataDir, path, ".."), { recursive: true })
    writeFileSync(join(dataDir, path), text)
  }
  writeFileSync(join(dataDir, "records/shop/.env"), "DB_PASSWORD='s3cret-one'\n")

  const first = openSecrets(settings)
  expect(first).toContain("(made now")
  expect(first).toContain("6 file(s) sealed with it, 1 plain env file(s) removed")
  const keyA = currentKeyId()
  const secretFiles = Object.keys(plain).filter((p) => !p.endsWith("state.json") && !p.startsWith("stacks/"))
  for (const path of secretFiles) {
    const text = readFileSync(join(dataDir, path), "utf8")
    expect([path, sealedWith(text)]).toEqual([path, keyA])
    expect(readOpened(join(dataDir, path))).toBe(plain[path as keyof typeof plain])
  }
  expect(existsSync(join(dataDir, "records/shop/.env"))).toBe(false)
  expect(readFileSync(join(dataDir, "records/shop/state.json"), "utf8")).toBe(plain["records/shop/state.json"])
  expect(readFileSync(join(dataDir, "stacks/shop/env.json"), "utf8")).toBe(plain["stacks/shop/env.json"])
  expect(openSecrets(settings)).not.toContain("sealed with it,")

  const out: string[] = []
  expect(secretKeyCommand(["rotate"], settings, (l) => void out.push(l))).toBe(0)
  expect(existsSync(`${settings.file}.previous`)).toBe(true)
  // A second rotation before a start has sealed the files anew is refused.
  expect(secretKeyCommand(["rotate"], settings, (l) => void out.push(l))).toBe(1)
  expect(openSecrets(settings)).toContain("6 file(s) sealed with it")
  const keyB = currentKeyId()
  expect(keyB).not.toBe(keyA)
  for (const path of secretFiles) {
    expect(sealedWith(readFileSync(join(dataDir, path), "utf8"))).toBe(keyB)
    expect(readOpened(join(dataDir, path))).toBe(plain[path as keyof typeof plain])
  }
  // With the previous key gone, every file still opens: none is sealed with it any more.
  rmSync(`${settings.file}.previous`)
  openSecrets(settings)
  for (const path of secretFiles) expect(isSealed(readFileSync(join(dataDir, path), "utf8"))).toBe(true)
  expect(readOpened(join(dataDir, "cluster.json"))).toBe(plain["cluster.json"])
})

test("secret-key new prints a key; with SVC_SECRET_KEY, rotate says how to rotate instead", () => {
  const out: string[] = []
  expect(secretKeyCommand(["new"], settings, (l) => void out.push(l))).toBe(0)
  expect(out[0]).toMatch(/^[0-9a-f]{64}$/)
  expect(secretKeyCommand(["rotate"], { ...settings, key: out[0] }, (l) => void out.push(l))).toBe(2)
  expect(out[1]).toContain("SVC_SECRET_KEY_PREVIOUS")
  expect(secretKeyCommand(["nonsense"], settings, (l) => void out.push(l))).toBe(2)
})
