// The recorded reports of the real scanners, and a PATH folder where the stand-in scanner answers
// as `trivy` and/or `grype` (tests/support/scanner-stand-in.sh).
import { mkdtempSync, symlinkSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Engine } from "#lib/engine/client.ts"
import { createScanner, type Scanner } from "#lib/images/scanner.ts"

export const fixture = (name: string) => join(import.meta.dir, "../../../shared/fixtures/scanners", name)

/** A temp folder holding the stand-in under the names given; the caller removes it. */
export function standInPath(...names: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), "hm-scanners-"))
  for (const n of names) symlinkSync(join(import.meta.dir, "scanner-stand-in.sh"), join(dir, n))
  return dir
}

/** The real scanner adapter with the stand-in as `trivy` printing a recorded report. */
export function standInScanner(
  engine: Engine,
  report = "trivy-alpine-310.json",
  env: Record<string, string> = {},
): Scanner {
  const env_ = { PATH: `${standInPath("trivy")}:/usr/bin:/bin`, STAND_IN_REPORT: fixture(report), ...env }
  return createScanner({ choice: "auto", timeout: 30, engine, env: env_ })
}
