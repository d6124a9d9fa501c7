// A unified diff of two texts, line by line, for a template update's preview. The texts are compose
// files (at most 1 MiB, a few thousand lines): a longest-common-subsequence table over the lines that
// differ once the common head and tail are set aside is small enough, and past a bound the diff is
// the whole of each side (said so). A library would do the same; this is the one place it is needed.
const CONTEXT = 3
const MAX_CELLS = 4_000_000

/** `--- a` / `+++ b` and hunks of `-`, `+` and ` ` lines; empty when the texts are the same. */
export function unifiedDiff(a: string, b: string, names = ["installed", "template"]): string {
  if (a === b) return ""
  const x = a.split("\n")
  const y = b.split("\n")
  let head = 0
  while (head < x.length && head < y.length && x[head] === y[head]) head++
  let tail = 0
  while (tail < x.length - head && tail < y.length - head && x[x.length - 1 - tail] === y[y.length - 1 - tail]) tail++
  const xs = x.slice(head, x.length - tail)
  const ys = y.slice(head, y.length - tail)
  const ops: [" " | "-" | "+", string][] = x.slice(0, head).map((l) => [" ", l] as [" ", string])
  if (xs.length * ys.length > MAX_CELLS) {
    for (const l of xs) ops.push(["-", l])
    for (const l of ys) ops.push(["+", l])
  } else {
    const n = xs.length
    const m = ys.length
    const lcs = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1))
    for (let i = n - 1; i >= 0; i--)
      for (let j = m - 1; j >= 0; j--)
        lcs[i]![j] = xs[i] === ys[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!)
    let i = 0
    let j = 0
    while (i < n || j < m) {
      if (i < n && j < m && xs[i] === ys[j]) ops.push([" ", xs[i++]!]), j++
      else if (i < n && (j === m || lcs[i + 1]![j]! >= lcs[i]![j + 1]!)) ops.push(["-", xs[i++]!])
      else ops.push(["+", ys[j++]!])
    }
  }
  for (const l of x.slice(x.length - tail)) ops.push([" ", l])
  return `--- ${names[0]}\n+++ ${names[1]}\n${hunks(ops)}`
}

/** The changed lines with CONTEXT lines around them, in `@@ -a,n +b,m @@` hunks. */
function hunks(ops: [" " | "-" | "+", string][]): string {
  const out: string[] = []
  let k = 0
  let lineA = 1
  let lineB = 1
  while (k < ops.length) {
    if (ops[k]![0] === " ") {
      k++, lineA++, lineB++
      continue
    }
    const start = Math.max(0, k - CONTEXT)
    let end = k
    let quiet = 0
    while (end < ops.length && quiet <= CONTEXT * 2) {
      quiet = ops[end]![0] === " " ? quiet + 1 : 0
      end++
    }
    end = Math.min(ops.length, end - Math.max(0, quiet - CONTEXT))
    const a0 = lineA - (k - start)
    const b0 = lineB - (k - start)
    const slice = ops.slice(start, end)
    const na = slice.filter(([o]) => o !== "+").length
    const nb = slice.filter(([o]) => o !== "-").length
    out.push(`@@ -${a0},${na} +${b0},${nb} @@`, ...slice.map(([o, l]) => `${o}${l}`))
    for (const [o] of ops.slice(k, end)) {
      if (o !== "+") lineA++
      if (o !== "-") lineB++
    }
    k = end
  }
  return `${out.join("\n")}\n`
}
