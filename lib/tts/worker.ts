// A speech worker process: the service's pool (lib/tts/pool.ts) starts a few of these, and all the
// work that could crash, hang or balloon happens here, never in the service's own process: Markdown
// parsing and normalisation ("prepare") and native synthesis with flite or espeak-ng plus MP3
// encoding ("speak"). Requests and replies are frames (lib/http/worker-frames.ts) on stdin and stdout, one
// request at a time. When this process dies (espeak-ng's stack smashing, the memory cap), the pool
// answers that one request with 502 `tts_engine_crashed` and starts another.
import { isDomainError, type ErrorKind } from "../errors/errors.ts"
import { Mp3Encoder } from "./encoder.ts"
import type { OfflineChoice, SpeechBackend } from "./types.ts"
import { offlineBackend } from "./offline.ts"
import { loadDetector } from "./detect.ts"
import { prepare } from "./prepare.ts"
import { encodeFrame, FrameReader } from "../http/worker-frames.ts"
import type { Voice } from "./voice.ts"

export type WorkerRequest =
  | { op: "prepare"; text: string; defaultVoice: string }
  | { op: "speak"; sentences: string[][]; voice: Voice; backend: OfflineChoice }
  | { op: "ping" }

export type WorkerReply =
  | { ok: true; [key: string]: unknown }
  | { ok: false; kind: ErrorKind; code: string; message: string }

let encoder: Mp3Encoder | undefined
const backends = new Map<OfflineChoice, SpeechBackend>()

async function handle(request: WorkerRequest): Promise<{ header: WorkerReply; payload?: Uint8Array }> {
  switch (request.op) {
    case "ping":
      return { header: { ok: true } }
    case "prepare":
      return { header: { ok: true, plan: await prepare(request.text, request.defaultVoice) } }
    case "speak": {
      encoder ??= new Mp3Encoder()
      const backend =
        backends.get(request.backend) ??
        backends.set(request.backend, offlineBackend(request.backend, encoder)).get(request.backend)!
      const speech = await backend.synthesize(request.sentences, request.voice)
      const base64 = Buffer.from(
        Buffer.from(speech.mp3.buffer, speech.mp3.byteOffset, speech.mp3.length).toString("base64"),
        "latin1",
      )
      return {
        header: { ok: true, backend: speech.backend, cues: speech.cues.map((c) => [c.start, c.end]) },
        payload: base64,
      }
    }
  }
}

/** Dies with the service: Linux's parent-death signal (prctl PR_SET_PDEATHSIG, SIGKILL), best effort. */
async function dieWithParent(): Promise<void> {
  try {
    const { dlopen, FFIType } = await import("bun:ffi")
    const libc = dlopen("libc.so.6", {
      prctl: { args: [FFIType.i32, FFIType.u64, FFIType.u64, FFIType.u64, FFIType.u64], returns: FFIType.i32 },
    })
    libc.symbols.prctl(1, 9, 0, 0, 0)
  } catch {}
  if (process.ppid === 1) process.exit(0)
}

export async function serve(): Promise<never> {
  await dieWithParent()
  void loadDetector()
  // stdout carries frames only: whatever a library prints goes to stderr.
  console.log = console.info = console.debug = console.error
  const out = Bun.stdout.writer()
  const reader = new FrameReader()
  for await (const chunk of Bun.stdin.stream()) {
    for (const frame of reader.push(chunk)) {
      const { id } = frame.header as { id: number }
      let reply: { header: WorkerReply; payload?: Uint8Array }
      try {
        reply = await handle(frame.header as WorkerRequest)
      } catch (err) {
        reply = isDomainError(err)
          ? { header: { ok: false, kind: err.kind, code: err.code, message: err.message } }
          : {
              header: {
                ok: false,
                kind: "internal",
                code: "tts_failed",
                message: `speech failed: ${err instanceof Error ? err.message : String(err)}`,
              },
            }
      }
      out.write(encodeFrame({ id, ...reply.header }, reply.payload))
      await out.flush()
    }
  }
  process.exit(0) // stdin closed: the service is gone
}

if (import.meta.main) await serve()
