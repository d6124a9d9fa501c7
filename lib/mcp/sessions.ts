// Live MCP sessions by Mcp-Session-Id. A session idle longer than its time-to-live is closed on the
// next request that reaches the store, and the oldest idle one gives way past the cap, so abandoned
// sessions never pile up.
export interface Closable {
  close(): Promise<void> | void
}

export const MAX_SESSIONS = 100

export class SessionStore<S extends Closable> {
  /** Ordered from least to most recently used. */
  private sessions = new Map<string, { session: S; lastUsed: number }>()

  constructor(
    private ttlMs: number,
    private now: () => number,
    private max = MAX_SESSIONS,
  ) {}

  get size(): number {
    return this.sessions.size
  }

  /** The live session, marked as used now; undefined when unknown or expired. */
  get(id: string): S | undefined {
    this.sweep()
    const entry = this.sessions.get(id)
    if (!entry) return undefined
    this.sessions.delete(id)
    this.sessions.set(id, { session: entry.session, lastUsed: this.now() })
    return entry.session
  }

  add(id: string, session: S): void {
    this.sweep()
    this.sessions.set(id, { session, lastUsed: this.now() })
    for (const oldest of this.sessions.keys()) {
      if (this.sessions.size <= this.max) break
      this.delete(oldest)
    }
  }

  delete(id: string): void {
    const entry = this.sessions.get(id)
    if (!entry) return
    this.sessions.delete(id)
    void Promise.resolve(entry.session.close()).catch(() => {})
  }

  /** Closes every session idle longer than the time-to-live. */
  sweep(): void {
    const cutoff = this.now() - this.ttlMs
    for (const [id, entry] of this.sessions) {
      if (entry.lastUsed > cutoff) break
      this.delete(id)
    }
  }
}
