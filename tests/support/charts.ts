// The resource charts' layout, checked in the browser: the text each canvas draws (uPlot draws its
// axis labels with fillText) is recorded, and what reaches out of a chart's box or is drawn over other
// text is named.
import type { Page } from "playwright-core"

/**
 * Records, per canvas, the text of its last drawing (cleared with it): where each piece lands, in CSS
 * pixels, and how wide it is. uPlot draws its axis labels with fillText.
 */
export const recordCanvasText = (page: Page) =>
  page.evaluate(() => {
    const proto = CanvasRenderingContext2D.prototype as any
    if (proto.recorded) return
    proto.recorded = true
    const { clearRect, fillText } = proto
    proto.clearRect = function (this: CanvasRenderingContext2D, ...args: number[]) {
      ;(this.canvas as any).texts = []
      return clearRect.apply(this, args)
    }
    proto.fillText = function (this: CanvasRenderingContext2D, text: string, x: number, y: number, ...rest: number[]) {
      const m = this.getTransform()
      const css = this.canvas.clientWidth / this.canvas.width
      const ink = this.measureText(text)
      const [atX, atY] = [(m.a * x + m.c * y + m.e) * css, (m.b * x + m.d * y + m.f) * css]
      const scale = m.a * css
      ;((this.canvas as any).texts ??= []).push({
        text,
        left: atX - ink.actualBoundingBoxLeft * scale,
        right: atX + ink.actualBoundingBoxRight * scale,
        top: atY - ink.actualBoundingBoxAscent * scale,
        bottom: atY + ink.actualBoundingBoxDescent * scale,
      })
      return fillText.call(this, text, x, y, ...rest)
    }
  })

/** What is wrong with the charts' layout: an element reaching out of its chart's box, labels drawn over each other or out of their canvas. */
export const chartFaults = (page: Page) =>
  page.evaluate(() => {
    const faults: string[] = []
    for (const chart of document.querySelectorAll<HTMLElement>(".chart")) {
      const box = chart.getBoundingClientRect()
      const name = chart.dataset.chart
      for (const el of chart.querySelectorAll<HTMLElement>("*")) {
        const r = el.getBoundingClientRect()
        if (r.width && (r.left < box.left - 0.5 || r.right > box.right + 0.5 || r.bottom > box.bottom + 0.5))
          faults.push(
            `${name}: ${el.tagName.toLowerCase()}.${el.className} reaches ${Math.round(r.left - box.left)}..${Math.round(r.right - box.left)} of ${Math.round(box.width)} px`,
          )
      }
      const canvas = chart.querySelector("canvas")!
      const texts: { text: string; left: number; right: number; top: number; bottom: number }[] =
        (canvas as any).texts ?? []
      texts.forEach((t, i) => {
        if (t.left < -0.5 || t.right > canvas.clientWidth + 0.5 || t.top < -0.5 || t.bottom > canvas.clientHeight + 0.5)
          faults.push(`${name}: "${t.text}" is drawn out of the canvas`)
        for (const u of texts.slice(i + 1))
          if (t.left < u.right && u.left < t.right && t.top < u.bottom && u.top < t.bottom)
            faults.push(`${name}: "${t.text}" and "${u.text}" are drawn over each other`)
      })
      if (!texts.length) faults.push(`${name}: no label drawn`)
    }
    return faults
  })
