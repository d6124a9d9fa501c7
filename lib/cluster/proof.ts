// The gateway's proof: what the control plane adds to every call it forwards to a node (X-Hm-Proof),
// so that a node with sign-in on knows who called the gateway without being sent a credential. It
// is an HMAC-SHA256 keyed with the cluster token the node shares, over the method, the path with its
// query, and a payload naming the control plane, the node, the caller and their role, a timestamp
// and a random nonce: `v1.<payload, base64url JSON>.<HMAC, base64url>`. The token itself never
// travels. A node admits a proof that matches its token, names it and its control plane, is at most
// PROOF_WINDOW_MS old (or early), and whose nonce it has not seen in that window.
import { sameSecret } from "./bearer.ts"
import { unauthenticated, unavailable } from "../errors/errors.ts"

export const PROOF_HEADER = "x-hm-proof"
/** How far a proof's timestamp may be from the node's clock, either way. */
export const PROOF_WINDOW_MS = 60_000
/** Nonces kept at most (one per call forwarded within the window): past it, calls wait (503). */
const NONCES_MAX = 200_000
const SWEEP_MS = 10_000

/** Who a forwarded call comes from, and where it goes. */
export interface Forwarded {
  /** The control plane's server_id. */
  controlPlane: string
  /** The node's server_id. */
  node: string
  /** The caller signed in on the control plane, and their role there. */
  user: string
  role: string
}

interface Payload {
  cp: string
  node: string
  user: string
  role: string
  /** Milliseconds since the epoch, on the control plane's clock. */
  t: number
  n: string
}

// Bun's own hasher, not node:crypto: the service starts without loading that module.
const mac = (token: string, method: string, path: string, payload: string) =>
  new Bun.CryptoHasher("sha256", token).update(`hm-proof-v1\n${method.toUpperCase()}\n${path}\n${payload}`).digest()

/** Signs one forwarded call for the caller it was made for: the method, the node's path with its query, the node's server_id. */
export type ProofSigner = (method: string, path: string, node: string) => string

/** The header's value for one call: `path` is the node's path with its query, as the node will see it. */
export function signProof(
  token: string,
  {
    method,
    path,
    who,
    now = Date.now(),
    nonce = Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("base64url"),
  }: { method: string; path: string; who: Forwarded; now?: number; nonce?: string },
): string {
  const payload: Payload = { cp: who.controlPlane, node: who.node, user: who.user, role: who.role, t: now, n: nonce }
  const encoded = Buffer.from(JSON.stringify(payload)).toString("base64url")
  return `v1.${encoded}.${mac(token, method, path, encoded).toString("base64url")}`
}

const refused = (why: string) => unauthenticated(`the gateway's proof is refused: ${why}`)

function parse(header: string): { encoded: string; signature: string; payload: Payload } {
  const [version, encoded, signature, ...rest] = header.split(".")
  if (version !== "v1" || !encoded || !signature || rest.length) throw refused("malformed")
  let p: Partial<Payload>
  try {
    p = JSON.parse(Buffer.from(encoded, "base64url").toString()) as Partial<Payload>
  } catch {
    throw refused("malformed")
  }
  const text = (s: unknown) => typeof s === "string" && s.length > 0 && s.length <= 256 && !/[\x00-\x1f\x7f]/.test(s)
  if (![p.cp, p.node, p.user, p.role, p.n].every(text) || !Number.isSafeInteger(p.t)) throw refused("malformed")
  return { encoded, signature, payload: p as Payload }
}

/** What a node expects of a proof: its cluster token, its own server_id and its control plane's. */
export interface ProofExpect {
  token: string
  node: string
  controlPlane: string
}

/** A node's check of proofs, with the nonces it has seen within the window. */
export class ProofCheck {
  /** Nonce -> when it can be forgotten (its proof is stale by then). */
  private nonces = new Map<string, number>()
  private swept = 0

  constructor(
    private readonly now: () => number = Date.now,
    private readonly max = NONCES_MAX,
  ) {}

  /** The caller a proof names, once: throws 401 saying why it is refused (503 when too many were seen in the window). */
  check(header: string, method: string, path: string, expect: ProofExpect): Forwarded {
    const { encoded, signature, payload } = parse(header)
    const expected = mac(expect.token, method, path, encoded).toString("base64url")
    if (!sameSecret(signature, expected))
      throw refused("it does not match this node's cluster token, the method and the path")
    const now = this.now()
    if (Math.abs(now - payload.t) > PROOF_WINDOW_MS)
      throw refused(`its time is more than ${PROOF_WINDOW_MS / 1000} s from this node's clock`)
    if (payload.node !== expect.node) throw refused("it was made for another node")
    if (payload.cp !== expect.controlPlane) throw refused("it comes from another control plane than this node's")
    this.sweep(now)
    if (this.nonces.has(payload.n)) throw refused("it was used already")
    if (this.nonces.size >= this.max)
      throw unavailable(
        `more than ${this.max} calls came through the gateway within ${PROOF_WINDOW_MS / 1000} s`,
        "too_many_calls",
        { retryAfter: 1 },
      )
    this.nonces.set(payload.n, payload.t + PROOF_WINDOW_MS)
    return { controlPlane: payload.cp, node: payload.node, user: payload.user, role: payload.role }
  }

  private sweep(now: number): void {
    if (now - this.swept < SWEEP_MS && this.nonces.size < this.max) return
    this.swept = now
    for (const [nonce, until] of this.nonces) if (until < now) this.nonces.delete(nonce)
  }
}

/** This server's check of the proofs its control plane's gateway sends. */
export const proofs = new ProofCheck()
