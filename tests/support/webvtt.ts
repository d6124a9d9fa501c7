// webvtt-parser (a real WebVTT parser, without type declarations of its own), typed for the tests.
import { createRequire } from "node:module"

export interface ParsedVtt {
  cues: { id: string; startTime: number; endTime: number; text: string }[]
  errors: { message: string; line: number; col: number }[]
}

const { WebVTTParser } = createRequire(import.meta.url)("webvtt-parser") as {
  WebVTTParser: new () => { parse(input: string, mode?: string): ParsedVtt }
}

/** Parses in subtitle mode, where cue text errors (an unescaped "&" or "<") are reported too. */
export const parseVtt = (text: string): ParsedVtt => new WebVTTParser().parse(text, "subtitles")
