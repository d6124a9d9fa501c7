import { expect, test } from "bun:test"
import { highlightLine, highlightYaml } from "../../ui/yaml-editor.ts"

test("keys, list items, scalars, comments and interpolation get their classes", () => {
  expect(highlightLine("services:")).toBe('<span class="y-key">services:</span>')
  expect(highlightLine("    image: nginx:alpine")).toBe('    <span class="y-key">image:</span> nginx:alpine')
  expect(highlightLine('      - "8080:80"')).toBe(
    '      <span class="y-dash">- </span><span class="y-string">"8080:80"</span>',
  )
  expect(highlightLine("  replicas: 3 # three")).toBe(
    '  <span class="y-key">replicas:</span><span class="y-number"> 3 </span><span class="y-comment"># three</span>',
  )
  expect(highlightLine("  debug: true")).toBe('  <span class="y-key">debug:</span><span class="y-bool"> true</span>')
  expect(highlightLine("  # a comment")).toBe('<span class="y-comment">  # a comment</span>')
  expect(highlightLine("      TOKEN: ${TOKEN:-x}")).toBe(
    '      <span class="y-key">TOKEN:</span> <span class="y-var">${TOKEN:-x}</span>',
  )
  expect(highlightLine("---")).toBe('<span class="y-doc">---</span>')
})

test("the text is escaped and its lines kept, so the overlay matches the textarea", () => {
  const text = "a: <b>&\n\n  - x"
  const html = highlightYaml(text)
  expect(html).not.toContain("<b>")
  expect(html.split("\n")).toHaveLength(3)
  expect(
    html
      .replace(/<[^>]+>/g, "")
      .replace(/&lt;/g, "<")
      .replace(/&gt;/g, ">")
      .replace(/&amp;/g, "&"),
  ).toBe(text)
})
