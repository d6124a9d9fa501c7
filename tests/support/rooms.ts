// A clear root of its own for a test's compose runner or stack CLI (lib/engine/clear-room.ts): an
// empty folder under the system's temp folder, which rooms are mounted over.
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ClearRooms } from "#lib/engine/clear-room.ts"

export const testRooms = () => new ClearRooms(join(mkdtempSync(join(tmpdir(), "hm-rooms-")), "clear"))
