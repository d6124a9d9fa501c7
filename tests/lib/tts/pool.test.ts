// The worker pool for real: worker processes that crash (espeak-ng's stack smashing), miss their
// deadline, or run under their memory cap; the pool answers each such request with its error and
// serves the next one with a fresh worker.
import { afterAll, expect, test } from "bun:test"
import { readFileSync } from "node:fs"
import { DomainError } from "#lib/errors/errors.ts"
import { WorkerPool } from "#lib/tts/pool.ts"
import { Speaker } from "#lib/tts/speaker.ts"
import { voiceOf } from "#lib/tts/voice.ts"

const pool = new WorkerPool({ size: 2, memoryMb: 4096 })
afterAll(() => pool.close())
const voice = voiceOf({ lang: "en" }, "en-US-EmmaMultilingualNeural")

const speak = (sentences: string[][], timeoutMs = 60_000, backend: "offline" | "espeak" = "espeak") =>
  pool.run({ op: "speak", sentences, voice, backend }, timeoutMs)
const failure = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error("expected a failure")
    },
    (err) => err as DomainError,
  )

test("a worker that crashes answers that request with 502 tts_engine_crashed; the next request is served", async () => {
  const crash = await failure(speak([["Hello " + "x.".repeat(90) + " world."]]))
  expect(crash).toBeInstanceOf(DomainError)
  expect(crash.kind).toBe("upstream")
  expect(crash.code).toBe("tts_engine_crashed")
  expect(crash.message).toContain("SIGABRT")
  const ok = await speak([["The harbour is calm."]])
  expect(ok.header.ok).toBe(true)
  expect(ok.payload.length).toBeGreaterThan(1000)
}, 60_000)

test("a synthesis past its deadline is stopped: 504 tts_timeout, and the worker replaced", async () => {
  const pidsBefore = pool.pids()
  const long = Array.from({ length: 400 }, () => [
    "The harbour master walked along the quay before sunrise while the ships waited outside.",
  ])
  const late = await failure(speak(long, 300))
  expect(late.kind).toBe("timed_out")
  expect(late.code).toBe("tts_timeout")
  const ok = await speak([["Still here."]])
  expect(ok.header.ok).toBe(true)
  expect(pool.pids().some((pid) => !pidsBefore.includes(pid)) || pidsBefore.length === 0).toBe(true)
}, 60_000)

test("workers run with their address space capped", async () => {
  const capped = new WorkerPool({ size: 1, memoryMb: 1536 })
  try {
    await capped.run({ op: "ping" }, 10_000)
    const limits = readFileSync(`/proc/${capped.pids()[0]}/limits`, "utf8")
    expect(limits).toMatch(/Max address space\s+1610612736\s+1610612736\s+bytes/)
  } finally {
    capped.close()
  }
}, 60_000)

test("a worker whose cap is too small to start fails its request cleanly", async () => {
  const starved = new WorkerPool({ size: 1, memoryMb: 8 })
  try {
    const err = await failure(starved.run({ op: "ping" }, 10_000))
    expect(err.kind).toBe("upstream")
    expect(err.code).toBe("tts_engine_crashed")
  } finally {
    starved.close()
  }
}, 60_000)

test("a request beyond the running and waiting ones is refused at once, with a Retry-After", async () => {
  const speaker = new Speaker({
    backend: "espeak",
    maxChars: 50_000,
    concurrency: 1,
    voice: "en-US-EmmaMultilingualNeural",
    edgeTimeoutMs: 1000,
  })
  try {
    const text = "The harbour master walked along the quay before sunrise. ".repeat(20)
    const results = await Promise.allSettled(Array.from({ length: 7 }, () => speaker.speak(text)))
    const busy = results.flatMap((r) => (r.status === "rejected" ? [r.reason as DomainError] : []))
    expect(busy.map((e) => [e.kind, e.code])).toEqual([
      ["unavailable", "tts_busy"],
      ["unavailable", "tts_busy"],
    ]) // one running, four waiting
    for (const b of busy) expect(b.retryAfter).toBeGreaterThanOrEqual(1)
    expect(results.filter((r) => r.status === "fulfilled").length).toBe(5)
  } finally {
    speaker.close()
  }
}, 120_000)

test("text length counts characters (code points), not UTF-16 units", async () => {
  const speaker = new Speaker({
    backend: "espeak",
    maxChars: 10,
    concurrency: 1,
    voice: "en-US-EmmaMultilingualNeural",
    edgeTimeoutMs: 1000,
  })
  try {
    expect("😀".repeat(10).length).toBe(20)
    const err = await failure(speaker.speak("😀".repeat(11)))
    expect(err.code).toBe("text_too_long")
    expect(err.message).toContain("text has 11 characters; the limit is 10")
    const within = await speaker.speak("😀".repeat(10)).catch((err) => err)
    expect(within.code).not.toBe("text_too_long") // spoken, or refused for another reason
  } finally {
    speaker.close()
  }
}, 60_000)
