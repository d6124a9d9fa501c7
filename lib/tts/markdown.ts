// A request's text to what is read aloud. Front matter (`front-matter`) gives the settings; a Markdown
// body (`marked` lexer) is read block by block: headings and paragraphs as sentences, list items and
// table rows each as one, links as their text, images as their alt text; code blocks and HTML are
// skipped. Text without front matter and without Markdown syntax is plain text and is read as it is.
import frontMatter from "front-matter"
import { marked, type Token, type Tokens } from "marked"
import { badRequest } from "../http-error.ts"

export interface Document {
  /** The front matter's keys as written (an empty object when there is none). */
  attributes: Record<string, unknown>
  /** What is read, in order: paragraphs, headings, list items, table rows. */
  blocks: string[]
}

const MARKDOWN_SYNTAX =
  /^ {0,3}(#{1,6}\s|[-*+]\s+\S|\d{1,9}[.)]\s+\S|>|```|~~~|\|.*\|\s*$|<[a-zA-Z!/])|!?\[[^\]\n]*\]\([^)\n]*\)|(\*\*|__)\S[^\n]*?\S?\1|`[^`\n]+`/m

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " }

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] !== "#") return ENTITIES[name.toLowerCase()] ?? whole
    const code = name[1] === "x" || name[1] === "X" ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10)
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole
  })
}

function inline(tokens: readonly Token[] | undefined): string {
  return (tokens ?? [])
    .map((t) => {
      switch (t.type) {
        case "text":
          return "tokens" in t && t.tokens ? inline(t.tokens) : decodeEntities(t.text)
        case "escape":
        case "codespan":
          return t.text
        case "image":
          return decodeEntities(t.text)
        case "br":
        case "html": // inline tags are skipped; they may stand between words
          return " "
        case "checkbox":
          return ""
        default:
          return "tokens" in t ? inline(t.tokens) : ""
      }
    })
    .join("")
}

/** Whitespace collapsed, and a full stop added where a block does not end like a sentence. */
function asSentence(text: string): string {
  const s = text.replace(/\s+/g, " ").trim()
  if (!s || /[.!?…]["'”’)\]]*$/u.test(s)) return s
  return s.replace(/[,;:]+$/, "") + "."
}

function blocksOf(tokens: readonly Token[]): string[] {
  return tokens.flatMap((t): string[] => {
    switch (t.type) {
      case "heading":
      case "paragraph":
        return [asSentence(inline(t.tokens))]
      case "text":
        return [asSentence("tokens" in t && t.tokens ? inline(t.tokens) : decodeEntities(t.text))]
      case "list":
        return (t as Tokens.List).items.flatMap((item) => blocksOf(item.tokens))
      case "table": {
        const table = t as Tokens.Table
        return [table.header, ...table.rows].map((row) => asSentence(row.map((cell) => inline(cell.tokens).trim()).filter(Boolean).join(", ")))
      }
      case "blockquote":
        return blocksOf(t.tokens ?? [])
      default:
        return [] // code, html, hr, space, link definitions
    }
  }).filter(Boolean)
}

function plainBlocks(text: string): string[] {
  return text.split(/\n\s*\n/).map((p) => p.replace(/\s+/g, " ").trim()).filter(Boolean)
}

/** The front matter's keys and the body after it; YAML that does not parse is the client's error. */
function splitFrontMatter(text: string): { attributes: Record<string, unknown>; body: string } {
  let parsed: { attributes: unknown; body: string }
  try {
    parsed = frontMatter(text)
  } catch (err) {
    const reason = err instanceof Error ? err.message.split("\n")[0] : String(err)
    throw badRequest(`the front matter is not valid YAML: ${reason}`, "invalid_front_matter")
  }
  const attributes = parsed.attributes ?? {}
  if (typeof attributes !== "object" || Array.isArray(attributes)) throw badRequest("the front matter must be a mapping of keys to values", "invalid_front_matter")
  return { attributes: attributes as Record<string, unknown>, body: parsed.body }
}

/** The `title` key as a sentence ("" without one). */
function titleSentence(title: unknown): string {
  if (title === undefined || title === null) return ""
  if (typeof title !== "string" && typeof title !== "number") throw badRequest("front matter title must be text", "invalid_front_matter")
  return asSentence(String(title))
}

/** Reads a request's text: the front matter's keys, and the blocks to read aloud. */
export function readDocument(input: string): Document {
  const text = input.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n").replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/g, " ")
  if (!frontMatter.test(text)) return { attributes: {}, blocks: MARKDOWN_SYNTAX.test(text) ? blocksOf(marked.lexer(text)) : plainBlocks(text) }
  const { attributes, body } = splitFrontMatter(text)
  const blocks = blocksOf(marked.lexer(body))
  const title = titleSentence(attributes.title)
  return { attributes, blocks: title && blocks[0] !== title ? [title, ...blocks] : blocks } // read first, unless the body opens with it
}
