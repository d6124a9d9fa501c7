// A request's text to what is read aloud. Front matter (`front-matter`) gives the settings; a Markdown
// body (`marked` lexer) is read block by block: headings (ATX and setext) and paragraphs as sentences,
// list items and table rows each as one, links as their text, images as their alt text, HTML blocks
// as their text (scripts, styles and comments skipped), footnotes at the place they are defined;
// code blocks are skipped. Text without front matter and without Markdown syntax is plain text and is
// read as it is. Runs in a speech worker process (lib/tts/worker.ts).
//
// Bounded: container nesting deeper than MAX_NESTING (quotes, list markers on one line) is flattened
// before marked sees it (its recursion overflowed the stack at ~9000 levels and took seconds at
// 8000), and marked's setext-heading rule, whose regular expression is quadratic in a paragraph's
// length (1.6 s for 20,000 characters), is replaced by a linear scan.
import { decodeHTML } from "entities"
import frontMatter from "front-matter"
import { Marked, type Token, type Tokens } from "marked"
import { invalid } from "../errors/errors.ts"

export interface Document {
  /** The front matter's keys as written (an empty object when there is none). */
  attributes: Record<string, unknown>
  /** What is read, in order: paragraphs, headings, list items, table rows. */
  blocks: string[]
}

/** Deepest nesting of quotes and list markers read as written; deeper markers are dropped. */
export const MAX_NESTING = 20

const MARKDOWN_SYNTAX =
  /^ {0,3}(#{1,6}\s|[-*+]\s+\S|\d{1,9}[.)]\s+\S|>|```|~~~|\|.*\|\s*$|<[a-zA-Z!/]|(=+|-+)\s*$|\[\^[^\]\s]+\]:)|!?\[[^\]\n]*\]\([^)\n]*\)|(\*\*|__)\S[^\n]*?\S?\3|`[^`\n]+`|\[\^[^\]\s]+\]/m

const SETEXT_UNDERLINE = /^ {0,3}(=+|-+)[ \t]*$/
/** Lines that end a paragraph before a setext underline could make it a heading. */
const INTERRUPTS = /^ {0,3}(#{1,6}(\s|$)|>|```|~~~|[-*+]\s|1[.)]\s|<[a-zA-Z!/?])/

const md = new Marked({
  gfm: true,
  tokenizer: {
    // Linear replacement of marked's setext heading rule (same result on ordinary text).
    lheading(this: { lexer: { inline(src: string, tokens?: Token[]): Token[] } }, src: string) {
      let at = 0
      let lines = 0
      while (at < src.length) {
        const nl = src.indexOf("\n", at)
        const line = src.slice(at, nl < 0 ? src.length : nl)
        if (line.trim() === "") return undefined
        if (lines > 0 && SETEXT_UNDERLINE.test(line)) {
          const raw = src.slice(0, nl < 0 ? src.length : nl + 1)
          const text = src.slice(0, at).trim()
          return {
            type: "heading",
            raw,
            depth: line.trim()[0] === "=" ? 1 : 2,
            text,
            tokens: this.lexer.inline(text),
          } as Tokens.Heading
        }
        if (lines > 0 && INTERRUPTS.test(line)) return undefined
        lines++
        if (nl < 0) return undefined
        at = nl + 1
      }
      return undefined
    },
  } as never,
})

/** Quote and list markers at a line's start beyond the MAX_NESTING-th are dropped (a linear scan). */
export function flattenNesting(text: string, max = MAX_NESTING): string {
  const CONTAINER = /[ \t]{0,3}(?:>[ \t]?|[-*+][ \t]+|\d{1,9}[.)][ \t]+)/y
  return text
    .split("\n")
    .map((line) => {
      let at = 0
      let depth = 0
      let keep = 0
      for (;;) {
        CONTAINER.lastIndex = at
        const m = CONTAINER.exec(line)
        if (!m || m[0].length === 0) break
        at += m[0].length
        if (++depth === max) keep = at
      }
      return depth > max ? line.slice(0, keep) + line.slice(at) : line
    })
    .join("\n")
}

/** Footnote marks ([^1]) are not read; a footnote's text is read where it is defined. */
function footnotes(text: string): string {
  return text.replace(/^ {0,3}\[\^([^\]\s]+)\]:[ \t]*/gm, "Footnote $1: ").replace(/\[\^[^\]\s]+\](?!:)/g, "")
}

/** The text of an HTML fragment: comments, scripts and styles dropped, tags as spaces, entities decoded. */
export function htmlText(html: string): string {
  return decodeHTML(
    html
      .replace(/<!--[\s\S]*?(-->|$)/g, " ")
      .replace(/<(script|style)\b[^>]*>[\s\S]*?(<\/\1\s*>|$)/gi, " ")
      .replace(/<\/?[a-zA-Z][^>]*>|<![^>]*>|<\?[^>]*>/g, " "),
  )
}

/** Characters written between digits (5*3*2) or around a lower-case name (__init__) are text, not emphasis. */
function literalEmphasis(t: Tokens.Em | Tokens.Strong, before: string, after: string): boolean {
  if (/\d$/.test(before) && /^\d/.test(after) && /^\d+([.,]\d+)?$/.test(t.text)) return true
  return /^__[a-z0-9_]+__$/.test(t.raw)
}

function inline(tokens: readonly Token[] | undefined): string {
  let out = ""
  const list = tokens ?? []
  list.forEach((t, i) => {
    switch (t.type) {
      case "text":
        out += "tokens" in t && t.tokens ? inline(t.tokens) : decodeHTML(t.text)
        break
      case "escape":
        out += t.text
        break
      case "codespan":
        out += decodeHTML(t.text)
        break
      case "image":
        out += decodeHTML(t.text)
        break
      case "br":
        out += " "
        break
      case "html": // inline tags are skipped; they may stand between words
        out += t.text.startsWith("<") ? " " : decodeHTML(t.text)
        break
      case "checkbox":
        break
      case "em":
      case "strong": {
        const next = list[i + 1]
        const after = next && "raw" in next ? next.raw : ""
        out += literalEmphasis(t as Tokens.Em, out, after) ? t.raw : inline(t.tokens)
        break
      }
      default:
        out += "tokens" in t ? inline(t.tokens) : ""
    }
  })
  return out
}

/** Whitespace collapsed, and a full stop added where a block does not end like a sentence. */
function asSentence(text: string): string {
  const s = text.replace(/\s+/g, " ").trim()
  if (!s || /[.!?…。！？؟]["'”’»)\]」』]*$/u.test(s)) return s
  return (
    s.replace(/[,;:，、；：]+$/u, "") +
    (/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]$/u.test(s) ? "。" : ".")
  )
}

function blocksOf(tokens: readonly Token[]): string[] {
  return tokens
    .flatMap((t): string[] => {
      switch (t.type) {
        case "heading":
        case "paragraph":
          return [asSentence(inline(t.tokens))]
        case "text":
          return [asSentence("tokens" in t && t.tokens ? inline(t.tokens) : decodeHTML(t.text))]
        case "list":
          return (t as Tokens.List).items.flatMap((item) => blocksOf(item.tokens))
        case "table": {
          const table = t as Tokens.Table
          return [table.header, ...table.rows].map((row) =>
            asSentence(
              row
                .map((cell) => inline(cell.tokens).trim())
                .filter(Boolean)
                .join(", "),
            ),
          )
        }
        case "blockquote":
          return blocksOf(t.tokens ?? [])
        case "html":
          return htmlText(t.text)
            .split(/\n\s*\n/)
            .map(asSentence)
        default:
          return [] // code, hr, space, link definitions
      }
    })
    .filter(Boolean)
}

function plainBlocks(text: string): string[] {
  return text
    .split(/\n\s*\n/)
    .map((p) => p.replace(/\s+/g, " ").trim())
    .filter(Boolean)
}

/** The front matter's keys and the body after it; YAML that does not parse is the client's error. */
function splitFrontMatter(text: string): { attributes: Record<string, unknown>; body: string } {
  let parsed: { attributes: unknown; body: string }
  try {
    parsed = frontMatter(text)
  } catch (err) {
    const reason = err instanceof Error ? err.message.split("\n")[0] : String(err)
    throw invalid(`the front matter is not valid YAML: ${reason}`, "invalid_front_matter")
  }
  const attributes = parsed.attributes ?? {}
  if (typeof attributes !== "object" || Array.isArray(attributes))
    throw invalid("the front matter must be a mapping of keys to values", "invalid_front_matter")
  return { attributes: attributes as Record<string, unknown>, body: parsed.body }
}

/** The `title` key as a sentence ("" without one); a YAML date (title: 2024-01-05) is its date. */
function titleSentence(title: unknown): string {
  if (title === undefined || title === null) return ""
  if (title instanceof Date && !Number.isNaN(title.getTime())) return asSentence(title.toISOString().slice(0, 10))
  if (typeof title !== "string" && typeof title !== "number" && typeof title !== "boolean")
    throw invalid("front matter title must be text", "invalid_front_matter")
  return asSentence(String(title))
}

const markdownBlocks = (text: string) => blocksOf(md.lexer(flattenNesting(footnotes(text))))

/** Reads a request's text: the front matter's keys, and the blocks to read aloud. */
export function readDocument(input: string): Document {
  const text = input
    .replace(/^\uFEFF/, "")
    .replace(/\r\n?/g, "\n")
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/g, " ")
    .replace(/^(?:[ \t]*\n)+(?=---[ \t]*\n)/, "") // blank lines before front matter
  if (!frontMatter.test(text))
    return { attributes: {}, blocks: MARKDOWN_SYNTAX.test(text) ? markdownBlocks(text) : plainBlocks(text) }
  const { attributes, body } = splitFrontMatter(text)
  const blocks = markdownBlocks(body)
  const title = titleSentence(attributes.title)
  return { attributes, blocks: title && blocks[0] !== title ? [title, ...blocks] : blocks } // read first, unless the body opens with it
}
