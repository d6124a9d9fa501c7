// Passwords hashed with argon2id (Bun.password: hashing and checking run on a worker thread, off the
// event loop). A sign-in with an unknown user checks a hash all the same, so it costs what a wrong
// password costs.
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

  constructor(private hasher: Hasher = argon2id) {}

  hash(password: string): Promise<string> {
    return this.hasher.hash(password)
  }

  /** Checks `password` against `hash`, or against a hash of nothing when there is no user (same cost, always false). */
  async check(password: string, hash: string | undefined): Promise<boolean> {
    if (hash !== undefined) return this.hasher.verify(password, hash)
    await this.hasher.verify(password, await (this.dummy ??= this.hasher.hash(crypto.randomUUID())))
    return false
  }
}
