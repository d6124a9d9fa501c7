import { afterEach, expect, test } from "bun:test"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ScanQueue } from "#lib/images/scan-queue.ts"
import type { Report } from "#lib/images/scanner.ts"
import { withImageStatus } from "#lib/images/status.ts"
import type { ImageUpdates } from "#lib/images/update-checks.ts"

const IMAGE = `sha256:${"a".repeat(64)}`
const report: Report = { scanner: "trivy", version: "1", via: "binary", vulnerabilities: [] }
const noUpdates: Pick<ImageUpdates, "records"> = { records: async () => ({ images: {}, stacks: {} }) }
let dir: string
afterEach(() => rmSync(dir, { recursive: true, force: true }))

test("a scan that ends while the stored results are read shows as running, never as neither running nor scanned", async () => {
  dir = mkdtempSync(join(tmpdir(), "hm-status-"))
  let finish!: () => void
  const queue = new ScanQueue(dir, () => new Promise<Report>((resolve) => (finish = () => resolve(report))))
  await queue.enqueue(IMAGE, "busybox:latest")
  expect(queue.state(IMAGE)).toBe("running")
  // The results are read before the scan's own is written; the scan ends before the list is made.
  const scans = {
    state: (image: string) => queue.state(image),
    results: async () => {
      const results = await queue.results()
      finish()
      await queue.idle()
      return results
    },
  }
  const [during] = await withImageStatus({ scans, imageUpdates: noUpdates }, [{ id: IMAGE }])
  expect([during!.scan_state, during!.scan]).toEqual(["running", null])
  const [after] = await withImageStatus({ scans: queue, imageUpdates: noUpdates }, [{ id: IMAGE }])
  expect([after!.scan_state, after!.scan?.status]).toEqual([null, "done"])
})
