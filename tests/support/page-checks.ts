// Checks of a UI page as it stands in the browser, shared by the UI tests: what reaches out of the
// viewport, axe-core's serious and critical violations, and the page's screenshot. Screenshots go to
// docs/screenshots/<set>/ with UPDATE_SCREENSHOTS=1, else to a temporary folder (`shotsPrinted` says where).
import { mkdirSync, mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Page } from "playwright-core"

export const SHOTS = process.env.UPDATE_SCREENSHOTS
  ? join(import.meta.dir, "../../docs/screenshots")
  : mkdtempSync(join(tmpdir(), "hm-screenshots-"))

/** Where this run's screenshots went, printed when they are not the docs' own. */
export const shotsPrinted = () => {
  if (!process.env.UPDATE_SCREENSHOTS) console.log(`screenshots: ${SHOTS}`)
}

/** A screenshot of the page as it stands, in `set` (light, dark, phone), without the messages earlier steps left in the corner. */
export async function snap(page: Page, set: string, name: string): Promise<void> {
  mkdirSync(join(SHOTS, set), { recursive: true })
  await page.evaluate(() => document.getElementById("toasts")?.replaceChildren())
  await page.screenshot({ path: join(SHOTS, set, `${name}.png`) })
}

/** Elements whose right edge is beyond the viewport (inside a scrolling box, that box's edge counts), tables wider than their box, and the page's own width. */
export const overflow = (page: Page) =>
  page.evaluate(() => {
    const width = innerWidth
    const faults: string[] = []
    if (document.documentElement.scrollWidth > width)
      faults.push(`the page is ${document.documentElement.scrollWidth} px wide`)
    const clipped = (el: Element) => {
      for (let p = el.parentElement; p && p !== document.body; p = p.parentElement)
        if (getComputedStyle(p).overflowX !== "visible") return true
      return false
    }
    // A table that needs its box's scrollbar does not fit either.
    for (const wrap of document.querySelectorAll<HTMLElement>("main .table-wrap"))
      if (wrap.scrollWidth > wrap.clientWidth + 1)
        faults.push(`a table needs ${wrap.scrollWidth} px of its box's ${wrap.clientWidth}`)
    for (const el of document.querySelectorAll("body *")) {
      const r = el.getBoundingClientRect()
      if (!r.width || r.right <= width + 0.5 || clipped(el)) continue
      faults.push(
        `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ""}.${[...el.classList].join(".")} "${el.textContent?.trim().slice(0, 30)}" reaches ${Math.round(r.right)} px`,
      )
    }
    return faults
  })

/** axe-core's serious and critical violations of the page as it stands. */
export async function violations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => "axe" in window)))
    await page.addScriptTag({ path: require.resolve("axe-core/axe.min.js") })
  const found: { id: string; impact: string; help: string; nodes: { target: string[] }[] }[] = await page.evaluate(
    async () => (await (window as any).axe.run(document, { resultTypes: ["violations"] })).violations,
  )
  return found
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map(
      (v) =>
        `${v.id} (${v.impact}): ${v.help}: ${v.nodes
          .map((n) => n.target.join(" "))
          .slice(0, 5)
          .join(", ")}`,
    )
}
