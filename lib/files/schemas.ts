// The schemas of the file routes (volumes' and containers'): a path as text or bytes, a listing's
// page, an entry, a text file for the editor.
import * as v from "valibot"
import { SORTS } from "./files.ts"

const pathText = (what: string) =>
  v.optional(
    v.pipe(
      v.string(),
      v.maxLength(16384),
      v.description(`${what}, as text ("conf/app.yaml"; empty or "/" for the root)`),
    ),
  )
const pathBytes = (what: string) =>
  v.optional(
    v.pipe(
      v.string(),
      v.maxLength(22000),
      v.description(`${what} as its bytes in base64url, for names that are not UTF-8 (a listing gives \`name64\`)`),
    ),
  )

/** A path as a query or a body names it. */
export const pathFields = { path: pathText("the path below the root"), path64: pathBytes("the path") }
export const pathQuery = v.object(pathFields)

const whole = (description: string, max: number) =>
  v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\d{1,9}$/, "must be a whole number"),
      v.transform(Number),
      v.maxValue(max),
      v.description(description),
    ),
  )

export const listQuery = v.object({
  ...pathFields,
  offset: whole("entries to skip (default 0)", 1e9),
  limit: whole("entries in the page (default 500, at most 5000)", 5000),
  sort: v.optional(v.pipe(v.picklist(SORTS), v.description("name (default), size or mtime; folders come first"))),
  order: v.optional(v.pipe(v.picklist(["asc", "desc"]), v.description("asc (default) or desc"))),
})

export const entrySchema = v.object({
  name: v.string(),
  name64: v.optional(v.string()),
  kind: v.picklist(["file", "folder", "link", "other"]),
  size: v.number(),
  mode: v.string(),
  uid: v.number(),
  gid: v.number(),
  mtime: v.string(),
  target: v.optional(v.string()),
  target64: v.optional(v.string()),
})

const pathOut = { path: v.string(), path64: v.optional(v.string()) }

export const listingSchema = v.object({
  ...pathOut,
  entries: v.array(entrySchema),
  total: v.number(),
  offset: v.number(),
  limit: v.number(),
})

export const textSchema = v.object({ ...pathOut, text: v.string(), version: v.string(), size: v.number() })

export const textBody = v.object({
  ...pathFields,
  text: v.pipe(v.string(), v.description("the file's new content (UTF-8)")),
  version: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^[0-9a-f]{64}$/),
      v.description(
        "the version the text was read at: the write is refused (409 file_changed) when the file changed since",
      ),
    ),
  ),
})

export const writtenSchema = v.object({ ...pathOut, version: v.optional(v.string()) })

export const renameBody = v.object({
  from: pathText("the entry to rename"),
  from64: pathBytes("the entry to rename"),
  to: pathText("its new path"),
  to64: pathBytes("its new path"),
})

export const writeQuery = v.object({
  ...pathFields,
  version: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^[0-9a-f]{64}$/),
      v.description("replace only while the file is at this version (409 file_changed otherwise)"),
    ),
  ),
})

export const changesSchema = v.array(v.object({ path: v.string(), kind: v.picklist(["modified", "added", "deleted"]) }))
