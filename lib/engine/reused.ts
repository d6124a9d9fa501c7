// A slow answer that changes slowly, shared: callers at the same moment share one request, and its
// answer serves for `ttlMs` afterwards. A failed request is not kept: the next caller asks again.
export class Reused<T> {
  private pending: Promise<T> | undefined
  private cached: { at: number; value: T } | undefined

  constructor(
    private load: () => Promise<T>,
    private ttlMs = 30_000,
    private now: () => number = Date.now,
  ) {}

  get(): Promise<T> {
    if (this.cached && this.now() - this.cached.at < this.ttlMs) return Promise.resolve(this.cached.value)
    this.pending ??= this.load()
      .then((value) => {
        this.cached = { at: this.now(), value }
        return value
      })
      .finally(() => (this.pending = undefined))
    return this.pending
  }
}
