// Passwords hashed with argon2id (Bun.password: hashing and checking run on a worker thread, off the
// event loop). A sign-in with an unknown user checks a hash all the same, so it costs what a wrong
// password costs.
//
// The checks wait in fair queues, one per lane (a sign-in's lane is its caller's address), and run
// in two slots: one takes the lane that asked for the fewest lately (its demand, halved every
// minute; lanes alike take turns), the other only a lane that asked for few (LIGHT). So a flood of
// sign-ins from addresses that keep asking takes one core at most and the rest of the service keeps
// its share, while a person signing in now and then goes at once into the second slot instead of
// waiting for the flood's check under way (two checks at most run at once). A lane holds at most LANE_WAITING checks; an attempt
// beyond them is refused before it costs a hash, as one beyond QUEUE_WAITING in all is.
import { rateLimited, unavailable } from "../errors/errors.ts"

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
/** Checks one lane may have waiting. */
export const LANE_WAITING = 2
/** Checks all lanes may have waiting. */
export const QUEUE_WAITING = 256

/** Lanes remembered with nothing waiting: what each asked for lately decides whose turn comes. */
const LANES = 4096
/** How fast a lane's demand is forgotten: halved every so many milliseconds. */
const DEMAND_HALF_LIFE = 60_000
/** The demand up to which a lane may use the second slot: a few sign-ins a minute. */
export const LIGHT = 6

/** The lane of work that is no sign-in (a password set by an admin, the setup). */
const OWN_LANE = "-"

interface Lane {
  /** Each waiting check's start, given the slot it runs in. */
  waiting: ((slot: number) => void)[]
  /** Checks it asked for lately (refused ones too), halved every DEMAND_HALF_LIFE. */
  demand: number
  /** When `demand` was last brought up to date. */
  at: number
  /** When it was last served (a count of checks started). */
  served: number
}

export class Passwords {
  private dummy: Promise<string> | undefined
  private lanes = new Map<string, Lane>()
  /** What runs in each slot: the first any lane's, the second a light lane's only. */
  private slots: [boolean, boolean] = [false, false]
  private started = 0
  private waiting = 0

  constructor(
    private hasher: Hasher = argon2id,
    private now: () => number = Date.now,
  ) {}

  /** The lane, its demand brought up to date and counting one more ask. */
  private ask(name: string): Lane {
    const now = this.now()
    let lane = this.lanes.get(name)
    if (!lane) this.lanes.set(name, (lane = { waiting: [], demand: 0, at: now, served: -1 }))
    lane.demand = this.demandOf(lane, now) + 1
    lane.at = now
    return lane
  }

  /** Runs `work` when its lane's turn comes; refused at once when its lane, or the queue, is full. */
  private inTurn<T>(name: string, work: () => Promise<T>): Promise<T> {
    const lane = this.ask(name)
    if (lane.waiting.length >= LANE_WAITING)
      throw rateLimited(
        "sign-in attempts from this address are still being checked; retry in a second",
        "too_many_attempts",
        {
          retryAfter: 1,
        },
      )
    if (this.waiting >= QUEUE_WAITING)
      throw unavailable("too many sign-ins are being checked; retry in a second", "sign_in_busy", { retryAfter: 1 })
    this.waiting++
    return new Promise<number>((resolve) => {
      lane.waiting.push(resolve)
      this.next()
    }).then((slot) =>
      work().finally(() => {
        this.slots[slot] = false
        this.next()
      }),
    )
  }

  /** A lane's demand as of `now`. */
  private demandOf = (lane: Lane, now: number) => lane.demand * 0.5 ** (Math.max(0, now - lane.at) / DEMAND_HALF_LIFE)

  /**
   * Starts waiting checks while a slot is free: in the light slot the light lane that asked least
   * lately, in the other any lane that did (of lanes alike, the one served longest ago).
   */
  private next(): void {
    for (const slot of [1, 0]) {
      if (this.slots[slot]) continue
      const now = this.now()
      let pick: { lane: Lane; demand: number } | undefined
      for (const lane of this.lanes.values()) {
        if (!lane.waiting.length) continue
        const demand = this.demandOf(lane, now)
        if (slot === 1 && demand > LIGHT) continue
        if (!pick || demand < pick.demand || (demand === pick.demand && lane.served < pick.lane.served))
          pick = { lane, demand }
      }
      if (!pick) continue
      this.slots[slot] = true
      this.waiting--
      pick.lane.served = this.started++
      pick.lane.waiting.shift()!(slot)
    }
    this.forget()
  }

  /** Past LANES, the idle lanes that asked least are forgotten (a lane not known asks nothing yet). */
  private forget(): void {
    if (this.lanes.size <= LANES) return
    const now = this.now()
    const idle = [...this.lanes]
      .filter(([, l]) => !l.waiting.length)
      .sort(([, a], [, b]) => this.demandOf(a, now) - this.demandOf(b, now))
    for (const [name] of idle.slice(0, this.lanes.size - LANES / 2)) this.lanes.delete(name)
  }

  hash(password: string): Promise<string> {
    return this.inTurn(OWN_LANE, () => this.hasher.hash(password))
  }

  /**
   * Checks `password` against `hash`, or against a hash of nothing when there is no user (same cost,
   * always false), in `lane`'s turn.
   */
  async check(password: string, hash: string | undefined, lane = OWN_LANE): Promise<boolean> {
    if (hash !== undefined) return this.inTurn(lane, () => this.hasher.verify(password, hash))
    const dummy = await (this.dummy ??= this.hasher.hash(crypto.randomUUID()))
    await this.inTurn(lane, () => this.hasher.verify(password, dummy))
    return false
  }
}
