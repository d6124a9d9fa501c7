import { expect, test } from "bun:test"
import type { DomainError } from "#lib/errors/errors.ts"
import { PROOF_WINDOW_MS, ProofCheck, signProof, type Forwarded } from "#lib/cluster/proof.ts"

const TOKEN = "the-cluster-token"
const who: Forwarded = { controlPlane: "cp-1", node: "node-1", user: "alice", role: "admin" }
const expectOf = { token: TOKEN, node: "node-1", controlPlane: "cp-1" }
const PATH = "/api/stacks/web?volumes=true"

function checker(start = 1_000_000) {
  const clock = { now: start }
  return { clock, check: new ProofCheck(() => clock.now) }
}

const reason = (f: () => unknown) => {
  try {
    f()
  } catch (err) {
    return `${(err as DomainError).kind} ${(err as Error).message}`
  }
  return "admitted"
}

test("a valid proof names the caller, their role and the control plane", () => {
  const { clock, check } = checker()
  const proof = signProof(TOKEN, { method: "DELETE", path: PATH, who, now: clock.now })
  expect(proof).not.toContain(TOKEN)
  expect(check.check(proof, "DELETE", PATH, expectOf)).toEqual(who)
})

test("a proof made at most the window away from the node's clock, either way, is fresh; past it, stale", () => {
  const { clock, check } = checker()
  expect(
    check.check(
      signProof(TOKEN, { method: "GET", path: PATH, who, now: clock.now - PROOF_WINDOW_MS }),
      "GET",
      PATH,
      expectOf,
    ).user,
  ).toBe("alice")
  expect(
    check.check(
      signProof(TOKEN, { method: "GET", path: PATH, who, now: clock.now + PROOF_WINDOW_MS }),
      "GET",
      PATH,
      expectOf,
    ).user,
  ).toBe("alice")
  expect(
    reason(() =>
      check.check(
        signProof(TOKEN, { method: "GET", path: PATH, who, now: clock.now - PROOF_WINDOW_MS - 1 }),
        "GET",
        PATH,
        expectOf,
      ),
    ),
  ).toContain("unauthenticated the gateway's proof is refused: its time is more than")
  expect(
    reason(() =>
      check.check(
        signProof(TOKEN, { method: "GET", path: PATH, who, now: clock.now + PROOF_WINDOW_MS + 1 }),
        "GET",
        PATH,
        expectOf,
      ),
    ),
  ).toContain("from this node's clock")
})

test("a proof is used once: replayed within the window it is refused, and its nonce is forgotten once it would be stale anyway", () => {
  const { clock, check } = checker()
  const proof = signProof(TOKEN, { method: "POST", path: PATH, who, now: clock.now })
  check.check(proof, "POST", PATH, expectOf)
  expect(reason(() => check.check(proof, "POST", PATH, expectOf))).toBe(
    "unauthenticated the gateway's proof is refused: it was used already",
  )
  clock.now += PROOF_WINDOW_MS + 1
  expect(reason(() => check.check(proof, "POST", PATH, expectOf))).toContain("its time is more than")
  // Another call with the same nonce, later: signed anew it is fresh, and the old nonce was swept.
  expect(
    check.check(
      signProof(TOKEN, { method: "POST", path: PATH, who, now: clock.now, nonce: "n1" }),
      "POST",
      PATH,
      expectOf,
    ).user,
  ).toBe("alice")
  expect(
    reason(() =>
      check.check(
        signProof(TOKEN, { method: "POST", path: PATH, who, now: clock.now, nonce: "n1" }),
        "POST",
        PATH,
        expectOf,
      ),
    ),
  ).toContain("used already")
})

test("another token, method, path, query, role, caller, node or control plane is refused", () => {
  const { clock, check } = checker()
  const sign = (w: Partial<Forwarded> = {}, token = TOKEN, method = "DELETE") =>
    signProof(token, { method, path: PATH, who: { ...who, ...w }, now: clock.now })
  const doesNotMatch =
    "unauthenticated the gateway's proof is refused: it does not match this node's cluster token, the method and the path"
  expect(reason(() => check.check(sign({}, "another-token"), "DELETE", PATH, expectOf))).toBe(doesNotMatch)
  expect(reason(() => check.check(sign(), "GET", PATH, expectOf))).toBe(doesNotMatch)
  expect(reason(() => check.check(sign(), "DELETE", "/api/stacks/db?volumes=true", expectOf))).toBe(doesNotMatch)
  expect(reason(() => check.check(sign(), "DELETE", "/api/stacks/web", expectOf))).toBe(doesNotMatch)
  expect(reason(() => check.check(sign({ node: "node-2" }), "DELETE", PATH, expectOf))).toBe(
    "unauthenticated the gateway's proof is refused: it was made for another node",
  )
  expect(reason(() => check.check(sign({ controlPlane: "cp-2" }), "DELETE", PATH, expectOf))).toBe(
    "unauthenticated the gateway's proof is refused: it comes from another control plane than this node's",
  )
  // The payload changed after signing (a viewer made admin, another name): the signature no longer fits.
  const [v1, payload, mac] = sign({ role: "viewer" }).split(".")
  const forged = (change: Record<string, string>) =>
    `${v1}.${Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload!, "base64url").toString()), ...change })).toString("base64url")}.${mac}`
  expect(reason(() => check.check(forged({ role: "admin" }), "DELETE", PATH, expectOf))).toBe(doesNotMatch)
  expect(reason(() => check.check(forged({ user: "root" }), "DELETE", PATH, expectOf))).toBe(doesNotMatch)
  expect(check.check(sign({ role: "viewer" }), "DELETE", PATH, expectOf).role).toBe("viewer")
})

test("a malformed proof is refused without being checked further", () => {
  const { check } = checker()
  for (const header of [
    "",
    "v1",
    "v2.e30.AAAA",
    "v1.not-json.AAAA",
    `v1.${Buffer.from('{"cp":"cp-1"}').toString("base64url")}.AAAA`,
    "v1.a.b.c",
  ])
    expect(reason(() => check.check(header, "GET", PATH, expectOf))).toBe(
      "unauthenticated the gateway's proof is refused: malformed",
    )
})

test("past its bound of nonces within the window, the node asks the gateway to wait (unavailable, retry after 1 s) rather than forget one", () => {
  const clock = { now: 1_000_000 }
  const check = new ProofCheck(() => clock.now, 2)
  check.check(signProof(TOKEN, { method: "GET", path: PATH, who, now: clock.now }), "GET", PATH, expectOf)
  check.check(signProof(TOKEN, { method: "GET", path: PATH, who, now: clock.now }), "GET", PATH, expectOf)
  const third = () =>
    check.check(signProof(TOKEN, { method: "GET", path: PATH, who, now: clock.now }), "GET", PATH, expectOf)
  expect(reason(third)).toContain("unavailable more than 2 calls")
  expect(() => third()).toThrow(expect.objectContaining({ retryAfter: 1 }))
  clock.now += PROOF_WINDOW_MS + 1
  expect(
    check.check(signProof(TOKEN, { method: "GET", path: PATH, who, now: clock.now }), "GET", PATH, expectOf).user,
  ).toBe("alice")
})
