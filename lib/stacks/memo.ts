// What a room keeps in memory of each stack, so that the lists ask no file per stack: read from the
// stack's records the first time it is asked, then kept by that room's own writes (`set`), and
// dropped when the stack goes (deleted, or its first deploy undone). A read still under way when a
// stack goes is answered but not kept (it may be the gone stack's), and one under way when a write
// lands yields to the write.
import type { Stacks } from "./store.ts"

export class StackMemo<T> {
  private kept = new Map<string, T>()
  /** Counts the stacks gone: a read that began before one went is not kept. */
  private gone = 0

  constructor(
    private readonly stacks: Pick<Stacks, "has" | "onForget">,
    private readonly load: (name: string) => Promise<T>,
  ) {
    stacks.onForget((name) => {
      this.kept.delete(name)
      this.gone++
    })
  }

  /** The stack's value: kept, else loaded (and kept while the stack is here). */
  async get(name: string): Promise<T> {
    if (this.kept.has(name)) return this.kept.get(name) as T
    const gone = this.gone
    const value = await this.load(name)
    if (this.kept.has(name)) return this.kept.get(name) as T
    if (gone === this.gone && this.stacks.has(name)) this.kept.set(name, value)
    return value
  }

  /** What the owner just wrote of a stack here (nothing is kept of a name that is no stack). */
  set(name: string, value: T): void {
    if (this.stacks.has(name)) this.kept.set(name, value)
  }
}
