// Passwords hashed with argon2id (Bun.password: hashing and checking run on a worker thread, off the
// event loop), one at a time, so that a burst of sign-ins takes one core at most and the rest of the
// service keeps its share. A sign-in with an unknown user checks a hash all the same, so it costs
// what a wrong password costs.
export interface Hasher {
  hash(password: string): Promise<string>
  verify(password: string, hash: string): Promise<boolean>
}

export const argon2id: Hasher = {
  hash: (password) => Bun.password.hash(password, { algorithm: "argon2id" }),
  verify: (password, hash) => Bun.password.verify(password, hash),
}

/** Shortest password accepted. */
export const MIN_PASSWORD = 8
/** Longest password accepted (argon2 takes any length; a megabyte of it is only work). */
export const MAX_PASSWORD = 1024

export class Passwords {
  private dummy: Promise<string> | undefined
  private last: Promise<unknown> = Promise.resolve()

  constructor(private hasher: Hasher = argon2id) {}

  /** Runs after the work queued before it, whether that failed or not. */
  private inTurn<T>(work: () => Promise<T>): Promise<T> {
    const turn = this.last.then(work, work)
    this.last = turn.catch(() => {})
    return turn
  }

  hash(password: string): Promise<string> {
    return this.inTurn(() => this.hasher.hash(password))
  }

  /** Checks `password` against `hash`, or against a hash of nothing when there is no user (same cost, always false). */
  async check(password: string, hash: string | undefined): Promise<boolean> {
    if (hash !== undefined) return this.inTurn(() => this.hasher.verify(password, hash))
    const dummy = await (this.dummy ??= this.hash(crypto.randomUUID()))
    await this.inTurn(() => this.hasher.verify(password, dummy))
    return false
  }
}
