// Sealing: a sealed text names its key and holds nothing of the plain text; it opens with that key
// (current or previous) and with no other; a changed byte is refused; plain text passes as it is.
import { expect, test } from "bun:test"
import { isSealed, newSecretKey, seal, sealedWith, unseal, useKeys } from "#lib/data/sealed.ts"

test("a sealed text names its key, hides the plain text, and opens with that key only", () => {
  const a = newSecretKey()
  const b = newSecretKey()
  useKeys({ current: a, previous: [] })
  const plain = '[{"key":"DB_PASSWORD","value":"hunter2-xyz","secret":true}]\n'
  const sealed = seal(plain)
  expect(isSealed(sealed)).toBe(true)
  expect(sealedWith(sealed)).toBe(a.id)
  expect(sealed).not.toContain("hunter2")
  expect(seal(plain)).not.toBe(sealed) // a fresh nonce per write
  expect(unseal(sealed)).toBe(plain)
  // After a rotation, the previous key still opens it; a keyring without it names the key it lacks.
  useKeys({ current: b, previous: [a] })
  expect(unseal(sealed)).toBe(plain)
  useKeys({ current: b, previous: [] })
  expect(() => unseal(sealed, "env.json")).toThrow(`env.json is sealed with the secret key ${a.id}`)
  // A changed byte of the ciphertext is refused, and the message carries nothing of the content.
  useKeys({ current: a, previous: [] })
  const envelope = JSON.parse(sealed)
  const data = Buffer.from(envelope.data, "base64")
  data[3]! ^= 1
  const changed = JSON.stringify({ ...envelope, data: data.toString("base64") })
  expect(() => unseal(changed, "env.json")).toThrow("env.json does not open with the secret key")
  expect(unseal("plain text\n")).toBe("plain text\n")
  expect(sealedWith("plain text\n")).toBeUndefined()
})
