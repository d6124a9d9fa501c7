// MPEG audio frame headers: how long a stream of MP3 frames plays, measured frame by frame.

const BITRATES_KBPS = {
  mpeg1: [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  mpeg2: [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
}
const SAMPLE_RATES = { 3: [44100, 48000, 32000], 2: [22050, 24000, 16000], 0: [11025, 12000, 8000] } as Record<
  number,
  number[]
>

export interface Mp3Info {
  frames: number
  sampleRate: number
  /** Decoded length in samples (per channel). */
  samples: number
  seconds: number
}

/** Skips an ID3v2 tag at the start, if any. */
function id3Length(b: Uint8Array): number {
  if (b.length < 10 || b[0] !== 0x49 || b[1] !== 0x44 || b[2] !== 0x33) return 0
  return 10 + (((b[6]! & 0x7f) << 21) | ((b[7]! & 0x7f) << 14) | ((b[8]! & 0x7f) << 7) | (b[9]! & 0x7f))
}

/** Walks the Layer III frames of `bytes`; throws when the data is not a clean frame sequence. */
export function mp3Info(bytes: Uint8Array): Mp3Info {
  let pos = id3Length(bytes)
  let frames = 0
  let samples = 0
  let sampleRate = 0
  while (pos + 4 <= bytes.length) {
    const [b0, b1, b2] = [bytes[pos]!, bytes[pos + 1]!, bytes[pos + 2]!]
    const version = (b1 >> 3) & 3 // 3: MPEG-1, 2: MPEG-2, 0: MPEG-2.5
    const rate = SAMPLE_RATES[version]?.[(b2 >> 2) & 3]
    const kbps = (version === 3 ? BITRATES_KBPS.mpeg1 : BITRATES_KBPS.mpeg2)[b2 >> 4]
    if (b0 !== 0xff || (b1 & 0xe0) !== 0xe0 || ((b1 >> 1) & 3) !== 1 || !rate || !kbps) {
      throw new Error(`not an MP3 frame at byte ${pos}`)
    }
    const perFrame = version === 3 ? 1152 : 576
    pos += Math.floor(((perFrame / 8) * kbps * 1000) / rate) + ((b2 >> 1) & 1)
    frames++
    samples += perFrame
    sampleRate = rate
  }
  return { frames, sampleRate, samples, seconds: sampleRate ? samples / sampleRate : 0 }
}
