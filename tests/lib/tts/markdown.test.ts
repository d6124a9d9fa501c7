import { expect, test } from "bun:test"
import { DomainError } from "#lib/errors/errors.ts"
import { flattenNesting, readDocument } from "#lib/tts/markdown.ts"

// A bound for a hang, not a timing: these parse large texts and wait their turn on a loaded machine.
const SLOW = 60_000

const article = `---
title: Harbour news
voice: en-GB-SoniaNeural
rate: "+10%"
colour: blue
---
# Harbour news

The *harbour* opened at [dawn](https://example.com/dawn) &amp; closed at dusk.
A second line of the same paragraph

![A lighthouse at night](lighthouse.png)

## Arrivals:

- The **Marie**, from Brest
- [ ] The Anna
  1. first mate
  2. cook

| Ship | Tonnes |
|------|-------:|
| Marie | 120 |
| Anna | \`95\` |

> Fair winds to all.

\`\`\`sh
rm -rf /
\`\`\`

<div class="ad">Buy now</div>

Read \`config.yaml\`<br>then go.
`

test("front matter keys are returned as written, unknown ones included for the caller to ignore", () => {
  const doc = readDocument(article)
  expect(doc.attributes).toEqual({ title: "Harbour news", voice: "en-GB-SoniaNeural", rate: "+10%", colour: "blue" })
})

test("Markdown is read as sentences: headings, paragraphs, items, rows; links, images and code spans as text", () => {
  expect(readDocument(article).blocks).toEqual([
    "Harbour news.",
    "The harbour opened at dawn & closed at dusk. A second line of the same paragraph.",
    "A lighthouse at night.",
    "Arrivals.",
    "The Marie, from Brest.",
    "The Anna.",
    "first mate.",
    "cook.",
    "Ship, Tonnes.",
    "Marie, 120.",
    "Anna, 95.",
    "Fair winds to all.",
    "Buy now.",
    "Read config.yaml then go.",
  ])
})

test("the title is read first unless the body opens with it", () => {
  expect(readDocument("---\ntitle: Notes\n---\nSome text.").blocks).toEqual(["Notes.", "Some text."])
  expect(readDocument("---\ntitle: Notes\n---\n# Notes\n\nSome text.").blocks).toEqual(["Notes.", "Some text."])
  expect(readDocument("---\ntitle: 2024\n---\nSome text.").blocks).toEqual(["2024.", "Some text."])
})

test("plain text is read as it is: paragraphs, no sentence marks added, no Markdown taken from it", () => {
  const plain = "Prices rose 3 * 4 percent, x<y and y>z\nstill.\n\nA second paragraph without a stop"
  expect(readDocument(plain)).toEqual({
    attributes: {},
    blocks: ["Prices rose 3 * 4 percent, x<y and y>z still.", "A second paragraph without a stop"],
  })
  expect(readDocument("\uFEFFtab\tand\u0007bell\r\nline").blocks).toEqual(["tab and bell line"])
})

test("a document of only code, comments and scripts has nothing to read; HTML blocks are read as their text", () => {
  expect(readDocument("```\ncode\n```\n\n<!-- note -->\n\n<script>alert(1)</script>\n").blocks).toEqual([])
  expect(readDocument('<div class="note">\n<p>Tides &amp; times&nbsp;today</p>\n</div>\n\nAfter.').blocks).toEqual([
    "Tides & times today.",
    "After.",
  ])
})

test("setext headings, entities, footnotes; characters that are text, not emphasis, stay", () => {
  expect(readDocument("Title\n=====\n\nSub\n---\n\nBody &copy; 2024.").blocks).toEqual([
    "Title.",
    "Sub.",
    "Body © 2024.",
  ])
  expect(readDocument("# Maths\n\nWe know 5*3*2 is 30 and call `__init__` or __init__ first.").blocks).toEqual([
    "Maths.",
    "We know 5*3*2 is 30 and call __init__ or __init__ first.",
  ])
  expect(readDocument("# Notes\n\nThe tide[^1] turns.\n\n[^1]: Twice a day.").blocks).toEqual([
    "Notes.",
    "The tide turns.",
    "Footnote 1: Twice a day.",
  ])
  expect(readDocument("# A\n\n*really* **bold** _this_").blocks).toEqual(["A.", "really bold this."])
})

test("front matter after blank lines is still front matter; a date title is read as its date", () => {
  expect(readDocument("\n\n---\ntitle: Notes\n---\nBody.")).toEqual({
    attributes: { title: "Notes" },
    blocks: ["Notes.", "Body."],
  })
  expect(readDocument("---\ntitle: 2024-01-05\n---\nBody.").blocks).toEqual(["2024-01-05.", "Body."])
})

test(
  "Markdown bombs are read, never to more text than they hold, nesting past 20 levels flattened (their cost: bench/tts-text.ts)",
  () => {
    const bombs = [
      "> ".repeat(9000) + "x",
      "- ".repeat(8000) + "x",
      "- ".repeat(24999) + "x",
      "1. ".repeat(16000) + "x",
      "*".repeat(50000),
      "*a".repeat(25000),
      "word ".repeat(10000),
      "a\n".repeat(25000) + "===",
      "[".repeat(50000),
      "> - 1. ".repeat(7000) + "x",
    ]
    for (const bomb of bombs) expect(readDocument(bomb).blocks.join(" ").length).toBeLessThanOrEqual(bomb.length)
    expect(flattenNesting("> ".repeat(30) + "x")).toBe("> ".repeat(20) + "x")
    expect(flattenNesting("- ".repeat(5) + "x")).toBe("- ".repeat(5) + "x")
  },
  SLOW,
)

function rejects(text: string): DomainError {
  try {
    readDocument(text)
  } catch (err) {
    if (err instanceof DomainError) return err
    throw err
  }
  throw new Error("expected a domain error")
}

test("front matter that does not parse, or is not a mapping, is a 400 with the YAML reason", () => {
  const broken = rejects("---\nvoice: [unclosed\n---\nBody.")
  expect(broken.kind).toBe("invalid")
  expect(broken.code).toBe("invalid_front_matter")
  expect(broken.message).toMatch(/^the front matter is not valid YAML: .+/)
  expect(broken.message).not.toContain("\n")
  expect(rejects("---\n- a\n- b\n---\nBody.").message).toContain("mapping")
  expect(rejects("---\ntitle: {a: 1}\n---\nBody.").message).toContain("title")
})
