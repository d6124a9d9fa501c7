import { expect, test } from "bun:test"
import { HttpError } from "../../../lib/http-error.ts"
import { readDocument } from "../../../lib/tts/markdown.ts"

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
  expect(readDocument(plain)).toEqual({ attributes: {}, blocks: ["Prices rose 3 * 4 percent, x<y and y>z still.", "A second paragraph without a stop"] })
  expect(readDocument("\uFEFFtab\tand\u0007bell\r\nline").blocks).toEqual(["tab and bell line"])
})

test("a document of only code and HTML has nothing to read", () => {
  expect(readDocument("```\ncode\n```\n\n<p>html</p>\n").blocks).toEqual([])
})

function rejects(text: string): HttpError {
  try {
    readDocument(text)
  } catch (err) {
    if (err instanceof HttpError) return err
    throw err
  }
  throw new Error("expected an HttpError")
}

test("front matter that does not parse, or is not a mapping, is a 400 with the YAML reason", () => {
  const broken = rejects("---\nvoice: [unclosed\n---\nBody.")
  expect(broken.status).toBe(400)
  expect(broken.code).toBe("invalid_front_matter")
  expect(broken.message).toMatch(/^the front matter is not valid YAML: .+/)
  expect(broken.message).not.toContain("\n")
  expect(rejects("---\n- a\n- b\n---\nBody.").message).toContain("mapping")
  expect(rejects("---\ntitle: {a: 1}\n---\nBody.").message).toContain("title")
})
