// The volume import's tar guard, and the reader of a volume archive's first entries: a streaming
// port of the parts of Go's archive/tar Reader (Go 1.19, the reader of the engine's untar in moby's
// pkg/archive) that decide each entry's name, link name, type and where the next header starts.
// The guard keeps a reader of its own, although tar-stream is in the project, because a maintained
// JavaScript parser reads some archives differently from the engine (pax global headers, GNU
// headers with a prefix, GNU long names beside pax paths, star headers, each seen on dockerd 20.10).
// A guard must read exactly the entries the engine will read, or one can reach the engine unchecked.
//
// Followed from Go: the format (V7, USTAR/PAX, GNU, STAR) by checksum, unsigned or signed, then
// magic; octal and base-256 numbers and their errors; the USTAR prefix (155 bytes), the STAR
// prefix (131 bytes), and GNU's fallback that takes an access time that does not parse for a
// prefix; pax records parsed and validated as Go does, an 'x' header replacing the records of an
// earlier one; a global header ('g') returned as an entry of its own, its records applied to no
// other entry, dropping the 'x', 'L' and 'K' headers read before it; GNU long names and links
// winning over pax path and linkpath; a '\0' type with a trailing slash read as a directory; no
// data for links, symlinks, devices, directories and fifos whatever their size; GNU sparse files
// (the pax formats rename the entry, the old format 'S' has extension headers before its data);
// special files over 1 MiB refused; the end at two zero blocks, at a clean end of input, or in an
// entry's padding. As the engine decompresses before it reads, a stream that starts like gzip,
// bzip2, xz or zstd is refused. The bytes pass on unchanged; data is skipped by size, never copied.
import { invalid } from "../errors/errors.ts"

export interface TarEntry {
  name: string
  /** The typeflag as Go reports it: "0" file (also for a '\0' typeflag), "1" hard link, "2" symlink, "3"/"4" device, "5" directory, "6" fifo, "g" pax global header, or any other character. */
  type: string
  linkname: string
  /** The size Go reports: the pax size if any, the real size of a sparse file. */
  size: number
}

const BLOCK = 512
const MAX_SPECIAL = 1 << 20 // Go's maxSpecialFileSize: pax headers, GNU long names and links

const unreadable = (reason: string) => invalid(`the archive cannot be read: ${reason}`, "invalid_archive")
const TRUNCATED = "Unexpected end of data"
const invalidHeader = (what: string) => unreadable(`invalid tar header (${what})`)

// The first bytes of a stream that moby's DecompressStream decompresses before its tar reader sees it.
const COMPRESSED: [string, number[]][] = [
  ["bzip2", [0x42, 0x5a, 0x68]],
  ["gzip", [0x1f, 0x8b, 0x08]],
  ["xz", [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]],
  ["zstd", [0x28, 0xb5, 0x2f, 0xfd]],
]
const SNIFF = 6

const utf8 = new TextDecoder()

/** Go's parser.parseString: the bytes up to the first NUL (or the end of the field). */
function cstring(b: Uint8Array, start: number, end: number): string {
  let i = start
  let ascii = true
  for (; i < end; i++) {
    const c = b[i]!
    if (c === 0) break
    if (c > 0x7f) ascii = false
  }
  if (i === start) return ""
  // fromCharCode takes the bytes as arguments: only for short fields, not a long name of up to 1 MiB.
  if (ascii && i - start <= 256) return String.fromCharCode.apply(null, b.subarray(start, i) as unknown as number[])
  return utf8.decode(b.subarray(start, i))
}

/** Whether the C string at `start` is ASCII (Go's isASCII). */
function asciiCString(b: Uint8Array, start: number, end: number): boolean {
  for (let i = start; i < end && b[i] !== 0; i++) if (b[i]! > 0x7f) return false
  return true
}

/** Numbers parsed from one header; `bad` is Go's parser.err. */
class Numbers {
  bad = false

  /** Go's parseNumeric: base-256 when the top bit is set, octal otherwise. */
  numeric(b: Uint8Array, at: number, len: number): number {
    const first = b[at]!
    if (first & 0x80) return this.base256(b, at, len)
    return this.octal(b, at, len)
  }

  private base256(b: Uint8Array, at: number, len: number): number {
    const inv = b[at]! & 0x40 ? 0xff : 0
    let x = 0n
    for (let i = 0; i < len; i++) {
      let c = b[at + i]! ^ inv
      if (i === 0) c &= 0x7f
      if (x >> 56n > 0n) return this.fail()
      x = (x << 8n) | BigInt(c)
    }
    if (x >> 63n > 0n) return this.fail()
    return Number(inv ? -x - 1n : x)
  }

  /** Go's parseOctal: spaces and NULs trimmed at both ends, then the digits up to a NUL. */
  octal(b: Uint8Array, at: number, len: number): number {
    let s = at
    let e = at + len
    while (s < e && (b[s] === 0x20 || b[s] === 0)) s++
    while (e > s && (b[e - 1] === 0x20 || b[e - 1] === 0)) e--
    let x = 0
    for (let i = s; i < e; i++) {
      const c = b[i]!
      if (c === 0) break
      if (c < 0x30 || c > 0x37) return this.fail()
      x = x * 8 + (c - 0x30)
    }
    return x
  }

  private fail(): number {
    this.bad = true
    return 0
  }
}

// Go's Format values that matter here.
const V7 = 1
const USTAR = 2 // USTAR or PAX
const GNU = 8
const STAR = 16

const matches = (b: Uint8Array, at: number, s: string) => {
  for (let i = 0; i < s.length; i++) if (b[at + i] !== s.charCodeAt(i)) return false
  return true
}

/** The block's byte sum and its number of bytes over 0x7f, four bytes at a time when the block is aligned for it. */
function byteSums(b: Uint8Array, at: number): [sum: number, high: number] {
  const offset = b.byteOffset + at
  if ((offset & 3) === 0) {
    const words = new Uint32Array(b.buffer, offset, BLOCK / 4)
    let lanes = 0 // two 16-bit sums of byte pairs: at most 128 * 510 each
    let highs = 0 // four 8-bit counts of top bits: at most 128 each
    for (let i = 0; i < BLOCK / 4; i++) {
      const w = words[i]!
      lanes += (w & 0x00ff00ff) + ((w >>> 8) & 0x00ff00ff)
      highs += (w >>> 7) & 0x01010101
    }
    return [
      (lanes % 0x10000) + Math.floor(lanes / 0x10000),
      (highs & 0xff) + ((highs >>> 8) & 0xff) + ((highs >>> 16) & 0xff) + (highs >>> 24),
    ]
  }
  let sum = 0
  let high = 0
  for (let i = at, end = at + BLOCK; i < end; i++) {
    sum += b[i]!
    high += b[i]! >> 7
  }
  return [sum, high]
}

/** Go's getFormat: the checksum (unsigned or signed bytes) must match, then the magic decides; 0 when it does not match. */
function formatOf(b: Uint8Array, at: number, n: Numbers): number {
  let [sum, high] = byteSums(b, at)
  for (let i = at + 148; i < at + 156; i++) {
    sum -= b[i]!
    high -= b[i]! >> 7
  }
  const unsigned = sum + 8 * 0x20 // the checksum field counts as spaces
  const signed = unsigned - 256 * high
  const stored = n.octal(b, at + 148, 8)
  if (n.bad || (stored !== unsigned && stored !== signed)) return 0
  if (matches(b, at + 257, "ustar\0")) return matches(b, at + 508, "tar\0") ? STAR : USTAR
  if (matches(b, at + 257, "ustar  \0")) return GNU
  return V7
}

function isZero(b: Uint8Array, at: number): boolean {
  for (let i = at, end = at + BLOCK; i < end; i++) if (b[i] !== 0) return false
  return true
}

/** Types Go reads no data for (isHeaderOnlyType): hard link, symlink, char and block device, directory, fifo. */
const headerOnly = (type: number) => type >= 0x31 && type <= 0x36

/** Go's strconv.ParseInt(s, 10, 64), or undefined. */
function parseInt64(s: string): bigint | undefined {
  if (!/^[+-]?[0-9]+$/.test(s)) return undefined
  const x = BigInt(s)
  return x >= -(1n << 63n) && x < 1n << 63n ? x : undefined
}

/** Go's parsePAXTime. */
function validPaxTime(s: string): boolean {
  const dot = s.indexOf(".")
  const secs = dot < 0 ? s : s.slice(0, dot)
  const frac = dot < 0 ? "" : s.slice(dot + 1)
  return parseInt64(secs) !== undefined && /^[0-9]*$/.test(frac)
}

const PAX_SPARSE_MAP = "GNU.sparse.map"

/** Go's strconv.ParseInt(s, 10, 0) of a pax record's length, for a length that can fit the data: -1 otherwise. */
function recordLength(b: Uint8Array, start: number, end: number): number {
  let i = start
  const negative = b[i] === 0x2d
  if (negative || b[i] === 0x2b) i++
  if (i === end) return -1
  let n = 0
  for (; i < end; i++) {
    const c = b[i]! - 0x30
    if (c < 0 || c > 9) return -1
    n = Math.min(n * 10 + c, 2 ** 31) // capped: any length past the data is refused alike
  }
  return negative ? -n : n
}

/** Go's parsePAX: "%d %s=%s\n" records, validated; GNU sparse 0.0 offset/numbytes pairs joined into GNU.sparse.map. */
function parsePax(b: Uint8Array): Map<string, string> {
  const records = new Map<string, string>()
  const sparse: string[] = []
  let i = 0
  while (i < b.length) {
    const sp = b.indexOf(0x20, i)
    if (sp < 0) throw invalidHeader("a pax record without a length")
    const n = recordLength(b, i, sp)
    if (n < 5 || n > b.length - i) throw invalidHeader("a pax record of a wrong length")
    const end = i + n
    if (end <= sp + 1 || b[end - 1] !== 0x0a) throw invalidHeader("a pax record not ended by a newline")
    const eq = b.indexOf(0x3d, sp + 1)
    if (eq < 0 || eq >= end - 1) throw invalidHeader("a pax record without '='")
    const keyBytes = b.subarray(sp + 1, eq)
    const valueBytes = b.subarray(eq + 1, end - 1)
    const key = utf8.decode(keyBytes)
    const value = utf8.decode(valueBytes)
    const stringField = key === "path" || key === "linkpath" || key === "uname" || key === "gname"
    if (keyBytes.length === 0 || (stringField ? valueBytes.includes(0) : keyBytes.includes(0)))
      throw invalidHeader("an invalid pax record")
    if (key === "GNU.sparse.offset" || key === "GNU.sparse.numbytes") {
      if ((sparse.length % 2 === 0) !== (key === "GNU.sparse.offset") || value.includes(","))
        throw invalidHeader("GNU sparse records out of order")
      sparse.push(value)
    } else records.set(key, value)
    i = end
  }
  if (sparse.length) records.set(PAX_SPARSE_MAP, sparse.join(","))
  return records
}

/** The physical size of an entry's data as the number the reader skips; refused when it cannot be followed exactly. */
function dataSize(size: number | bigint, type: number): number {
  if (headerOnly(type)) return 0
  if (size < 0) throw invalidHeader("a negative size")
  const n = Number(size)
  if (!Number.isSafeInteger(n)) throw unreadable("an entry is larger than the guard can follow")
  return n
}

/** What Go's readGNUSparsePAXHeaders does to the entry: undefined when it is no pax sparse file. */
function paxSparse(records: Map<string, string>): { version: string } | undefined {
  const major = records.get("GNU.sparse.major") ?? ""
  const minor = records.get("GNU.sparse.minor") ?? ""
  if (major === "0" && (minor === "0" || minor === "1")) return { version: "0.x" }
  if (major === "1" && minor === "0") return { version: "1.0" }
  if (major !== "" || minor !== "") return undefined
  if ((records.get(PAX_SPARSE_MAP) ?? "") !== "") return { version: "0.x" }
  return undefined
}

type Special = { kind: number; data: Uint8Array; at: number }

/**
 * Reads the chunks pushed in and calls `onEntry` once per entry Go's Reader.Next would return, with
 * the name it would give, before the chunk that completes the entry's header is accepted. A throw
 * from `onEntry` fails the scan; so does anything Go would fail on (400 invalid_archive).
 */
export class TarScanner {
  private readonly block = new Uint8Array(BLOCK)
  private filled = 0
  /** Bytes of the current entry's data still to come, then of its padding. */
  private data = 0
  private pad = 0
  /** The data of a pax header or GNU long name/link being read. */
  private special: Special | undefined
  /** Old GNU sparse extension headers still to come before the data. */
  private sparseExtension = false
  /** One zero block was read; the next must be zero too (the end) or the archive is broken. */
  private zero = false
  /** The end of the archive was read: the rest is not tar (and the engine does not read it). */
  private ended = false
  private sniffed = 0
  private readonly head = new Uint8Array(SNIFF)
  // The meta headers read for the next entry (Go's next(): paxHdrs, gnuLongName, gnuLongLink).
  private pax: Map<string, string> | undefined
  private longName = ""
  private longLink = ""
  // The entry whose header is being read: its name, link name and size as Go reports them.
  private name = ""
  private linkname = ""
  private size: number | bigint = 0
  private failure: unknown
  private readonly numbers = new Numbers()

  constructor(private readonly onEntry: (e: TarEntry) => void) {}

  /** Reads the chunk (push one at a time); rejects with the first refusal or read error. */
  push(chunk: Uint8Array): Promise<void> {
    try {
      this.feed(chunk)
      return Promise.resolve()
    } catch (err) {
      return Promise.reject(err)
    }
  }

  /** Resolves at the end of a whole archive; rejects when it stops in the middle of an entry. */
  end(): Promise<void> {
    try {
      this.finish()
      return Promise.resolve()
    } catch (err) {
      return Promise.reject(err)
    }
  }

  /** The synchronous `push`: throws the first refusal or read error, and again on every later call. */
  feed(chunk: Uint8Array): void {
    if (this.failure) throw this.failure
    try {
      if (this.sniffed < SNIFF) this.sniff(chunk)
      this.read(chunk)
    } catch (err) {
      this.failure = err
      throw err
    }
  }

  /** The synchronous `end`. */
  finish(): void {
    if (this.failure) throw this.failure
    // Go: a clean end before a header, in the padding, or after one zero block; anywhere else the data is cut short.
    const cut =
      !this.ended &&
      (this.data > 0 ||
        this.filled > 0 ||
        this.sparseExtension ||
        (this.special !== undefined && this.special.at < this.special.data.length))
    if (cut) throw (this.failure = unreadable(TRUNCATED))
  }

  private sniff(chunk: Uint8Array): void {
    const take = Math.min(SNIFF - this.sniffed, chunk.length)
    this.head.set(chunk.subarray(0, take), this.sniffed)
    this.sniffed += take
    for (const [name, magic] of COMPRESSED)
      if (this.sniffed >= magic.length && magic.every((m, i) => this.head[i] === m))
        throw unreadable(
          `it is compressed (${name}), and the engine would unpack what it decompresses to; send an uncompressed tar`,
        )
  }

  private read(chunk: Uint8Array): void {
    const length = chunk.length
    let pos = 0
    while (pos < length) {
      if (this.ended) return
      if (this.data > 0) {
        const n = Math.min(this.data, length - pos)
        const special = this.special
        if (special) {
          special.data.set(chunk.subarray(pos, pos + n), special.at)
          special.at += n
        }
        this.data -= n
        pos += n
        if (this.data === 0 && special) {
          this.special = undefined
          this.specialRead(special)
        }
        continue
      }
      if (this.pad > 0) {
        const n = Math.min(this.pad, length - pos)
        this.pad -= n
        pos += n
        continue
      }
      if (this.filled === 0 && length - pos >= BLOCK) {
        this.header(chunk, pos)
        pos += BLOCK
        continue
      }
      const n = Math.min(BLOCK - this.filled, length - pos)
      this.block.set(chunk.subarray(pos, pos + n), this.filled)
      this.filled += n
      pos += n
      if (this.filled === BLOCK) {
        this.filled = 0
        this.header(this.block, 0)
      }
    }
  }

  /** A whole block where a header is due (Go's readHeader, then the switch in next()). */
  private header(b: Uint8Array, at: number): void {
    if (this.sparseExtension) return this.oldSparseExtension(b, at)
    if (this.zero) {
      if (!isZero(b, at)) throw invalidHeader("a zero block followed by a header")
      this.ended = true
      return
    }
    if (isZero(b, at)) {
      this.zero = true
      return
    }
    this.numbers.bad = false
    const format = formatOf(b, at, this.numbers)
    if (format === 0) throw invalidHeader("the checksum does not match")
    const type = b[at + 156]!
    const size = this.fields(b, at, format)

    // Go's first handleRegularFile, on the header's own size.
    if (size < 0 && !headerOnly(type)) throw invalidHeader("a negative size")
    switch (type) {
      case 0x78: // 'x': pax records for the next entry, replacing any read before
      case 0x67: // 'g': pax global records, an entry of its own
      case 0x4c: // 'L': GNU long name
      case 0x4b: // 'K': GNU long link
        if (size > MAX_SPECIAL) throw unreadable("a pax header or GNU long name is larger than 1 MiB")
        return this.startSpecial(type, this.name, size)
    }
    this.size = size
    this.entry(b, at, format, type)
  }

  /**
   * The header's fixed fields as Go's readHeader reads them: sets the name (with the prefix of the
   * USTAR, STAR or GNU format) and the link name, and returns the size; every number field is parsed
   * for its errors.
   */
  private fields(b: Uint8Array, at: number, format: number): number {
    const n = this.numbers
    this.name = cstring(b, at, at + 100)
    this.linkname = cstring(b, at + 157, at + 257)
    const size = n.numeric(b, at + 124, 12)
    n.numeric(b, at + 100, 8) // mode
    n.numeric(b, at + 108, 8) // uid
    n.numeric(b, at + 116, 8) // gid
    n.numeric(b, at + 136, 12) // mtime
    if (format !== V7) {
      n.numeric(b, at + 329, 8) // devmajor
      n.numeric(b, at + 337, 8) // devminor
      let prefix = ""
      if (format === USTAR) prefix = cstring(b, at + 345, at + 500)
      else if (format === STAR) {
        prefix = cstring(b, at + 345, at + 476)
        n.numeric(b, at + 476, 12) // atime
        n.numeric(b, at + 488, 12) // ctime
      } else {
        // GNU: an access or change time that does not parse is taken for a USTAR prefix written by
        // Go before 1.8 (golang.org/issues/12594, 21005), when it is ASCII.
        const times = new Numbers()
        if (b[at + 345] !== 0) times.numeric(b, at + 345, 12)
        if (b[at + 357] !== 0) times.numeric(b, at + 357, 12)
        if (times.bad && asciiCString(b, at + 345, at + 500)) prefix = cstring(b, at + 345, at + 500)
      }
      if (prefix) this.name = `${prefix}/${this.name}`
    }
    if (n.bad) throw invalidHeader("a number field does not parse")
    return size
  }

  /**
   * An entry's header past its fixed fields: Go's mergePAX, then the GNU long name and link, then
   * the '\0' type, the data size again (a pax size), then the sparse formats. The entry is reported
   * and its data comes next.
   */
  private entry(b: Uint8Array, at: number, format: number, type: number): void {
    const pax = this.pax
    if (pax) this.mergePax(pax)
    if (this.longName) this.name = this.longName
    if (this.longLink) this.linkname = this.longLink
    let flag = type
    if (flag === 0) flag = this.name.endsWith("/") ? 0x35 : 0x30
    const data = dataSize(this.size, flag)

    let extension = false
    if (flag === 0x53) extension = this.oldSparse(b, at, format)
    else if (pax) this.paxSparseFile(pax, flag)

    this.pax = undefined
    this.longName = ""
    this.longLink = ""
    this.onEntry({ name: this.name, type: String.fromCharCode(flag), linkname: this.linkname, size: Number(this.size) })
    this.sparseExtension = extension
    this.data = data
    this.pad = -data & (BLOCK - 1)
  }

  /** Go's mergePAX: the path, link path and size records replace the header's; uid, gid and times must parse. */
  private mergePax(pax: Map<string, string>): void {
    for (const [key, value] of pax) {
      if (value === "") continue // Go keeps the header's own value
      switch (key) {
        case "path":
          this.name = value
          break
        case "linkpath":
          this.linkname = value
          break
        case "uid":
        case "gid":
          if (parseInt64(value) === undefined) throw invalidHeader(`pax ${key} ${JSON.stringify(value)}`)
          break
        case "atime":
        case "mtime":
        case "ctime":
          if (!validPaxTime(value)) throw invalidHeader(`pax ${key} ${JSON.stringify(value)}`)
          break
        case "size": {
          const parsed = parseInt64(value)
          if (parsed === undefined) throw invalidHeader(`pax size ${JSON.stringify(value)}`)
          this.size = parsed
        }
      }
    }
  }

  /**
   * 'S', the old GNU sparse format: the real size in the header, the map in the header and in
   * extension headers read before the data. Whether extension headers follow.
   */
  private oldSparse(b: Uint8Array, at: number, format: number): boolean {
    if (format !== GNU) throw invalidHeader("an old GNU sparse file outside the GNU format")
    this.size = this.numbers.numeric(b, at + 483, 12)
    this.sparseEntries(b, at + 386, 4)
    if (this.numbers.bad) throw invalidHeader("an old GNU sparse map does not parse")
    return b[at + 482]! > 0
  }

  /** A pax sparse file, when the records make the entry one: its real name and size, and its 0.x map checked. */
  private paxSparseFile(pax: Map<string, string>, flag: number): void {
    const sparse = paxSparse(pax)
    if (!sparse) return
    const sparseName = pax.get("GNU.sparse.name") ?? ""
    if (sparseName) this.name = sparseName
    const real = pax.get("GNU.sparse.size") || pax.get("GNU.sparse.realsize") || ""
    if (real) {
      const parsed = parseInt64(real)
      if (parsed === undefined) throw invalidHeader(`GNU sparse size ${JSON.stringify(real)}`)
      this.size = parsed
    }
    if (sparse.version === "0.x") this.sparseMap0x1(pax)
    if (headerOnly(flag)) throw invalidHeader("a sparse entry of a type without data")
  }

  private globalName = ""

  private startSpecial(kind: number, name: string, size: number): void {
    const special: Special = { kind, data: new Uint8Array(size), at: 0 }
    this.data = size
    this.pad = -size & (BLOCK - 1)
    if (kind === 0x67) this.globalName = name
    if (size === 0) this.specialRead(special)
    else this.special = special
  }

  private specialRead({ kind, data }: Special): void {
    if (kind === 0x4c || kind === 0x4b) {
      const value = cstring(data, 0, data.length)
      if (kind === 0x4c) this.longName = value
      else this.longLink = value
      return
    }
    const records = parsePax(data)
    if (kind === 0x78) {
      this.pax = records
      return
    }
    // A global header is returned as an entry named by its path record; it is merged into no
    // other entry, and the meta headers read before it are dropped.
    this.pax = undefined
    this.longName = ""
    this.longLink = ""
    this.onEntry({ name: records.get("path") || this.globalName, type: "g", linkname: "", size: 0 })
  }

  /** Go's readGNUSparseMap0x1, for its errors. */
  private sparseMap0x1(pax: Map<string, string>): void {
    const blocks = parseInt64(pax.get("GNU.sparse.numblocks") ?? "")
    if (blocks === undefined || blocks < 0n) throw invalidHeader("GNU sparse numblocks")
    const map = (pax.get(PAX_SPARSE_MAP) ?? "").split(",")
    const fields = map.length === 1 && map[0] === "" ? [] : map
    if (BigInt(fields.length) !== 2n * blocks || fields.some((f) => parseInt64(f) === undefined))
      throw invalidHeader("GNU sparse map")
  }

  /** Old GNU sparse entries (offset, length), for their number errors; the map itself is not needed to frame the archive. */
  private sparseEntries(b: Uint8Array, at: number, count: number): void {
    for (let i = 0; i < count; i++) {
      const entry = at + i * 24
      if (b[entry] === 0) break
      this.numbers.numeric(b, entry, 12)
      this.numbers.numeric(b, entry + 12, 12)
    }
  }

  private oldSparseExtension(b: Uint8Array, at: number): void {
    this.numbers.bad = false
    this.sparseEntries(b, at, 21)
    if (this.numbers.bad) throw invalidHeader("an old GNU sparse map does not parse")
    if (b[at + 504]! > 0) return
    this.sparseExtension = false
  }
}

const unsafe = (path: string) => path.startsWith("/") || (path.includes("..") && path.split("/").includes(".."))
const quoted = (name: string) => `"${name.slice(0, 200)}"`

/** Types the engine unpacks (moby's createTarFile), and the global header it skips. */
const UNPACKED = new Set(["0", "1", "2", "3", "4", "5", "6", "g"])

/** Refuses an entry that would land outside the folder it is unpacked into, or of a type the engine does not unpack. */
export function checkEntry(e: TarEntry): void {
  if (unsafe(e.name)) throw invalid(`the archive entry ${quoted(e.name)} points outside the volume`, "unsafe_archive")
  if (e.type === "1" && unsafe(e.linkname))
    throw invalid(`the hard link ${quoted(e.name)} points outside the volume`, "unsafe_archive")
  if (!UNPACKED.has(e.type))
    throw invalid(`the archive entry ${quoted(e.name)} has a type the import does not unpack`, "unsafe_archive")
}

export interface TarGuard {
  /** The same bytes, read from the source only as fast as the consumer pulls them. */
  stream: ReadableStream<Uint8Array>
  /** Why the stream was refused, if it was. */
  readonly error: unknown
}

/**
 * The bytes unchanged; the stream fails on the first entry `check` refuses (by default one outside
 * the volume or of a type the engine does not unpack), before that entry is passed on,
 * and at the end when the archive stops in the middle of an entry. A pull source with no queue of
 * its own (not a TransformStream, whose queue an upload drains as fast as it can), so memory stays
 * flat in the size of the archive.
 */
export function tarGuard(source: ReadableStream<Uint8Array>, check: (e: TarEntry) => void = checkEntry): TarGuard {
  const scanner = new TarScanner(check)
  const reader = source.getReader()
  let error: unknown
  const stream = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const { done, value } = await reader.read()
        try {
          if (done) scanner.finish()
          else scanner.feed(value)
        } catch (err) {
          error = err
          reader.cancel(err).catch(() => {})
          throw err
        }
        if (done) controller.close()
        else controller.enqueue(value)
      },
      cancel: (reason) => reader.cancel(reason),
    },
    { highWaterMark: 0 },
  )
  return {
    stream,
    get error() {
      return error
    },
  }
}
