// Text as a person reads it aloud (filled in below).
export function normalize(text: string, _lang: string): string {
  return text
}
