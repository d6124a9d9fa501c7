// A volume's or a container's files: a folder listed a page at a time (sorted by a column's heading),
// folders opened, files downloaded, folders as tar, text files edited with the version they were read
// at (a file changed meanwhile is not overwritten), files and tars uploaded, folders made, entries
// renamed and removed (volumes). A name is shown with its control and direction characters escaped,
// and every call names a path by its exact bytes (`path64` when a name is not UTF-8).
import { HttpError } from "#lib/http/http-error.ts"
import { apiUrl, del, enc, get, post, put } from "../api.ts"
import { action, bytes, errorBox, h, load, loading, modal, render, table, toast, when } from "../dom.ts"
import { editor as codeEditor } from "../code-editor.ts"

interface Entry {
  name: string
  name64?: string
  kind: "file" | "folder" | "link" | "other"
  size: number
  mode: string
  uid: number
  gid: number
  mtime: string
  target?: string
}
interface Listing {
  entries: Entry[]
  total: number
  offset: number
  limit: number
}

/** A path as the names' bytes. */
type Path = Uint8Array[]

const PAGE = 500
const TEXT_MAX = 2 * 1024 * 1024

const bytesOfEntry = (e: Entry) =>
  e.name64
    ? Uint8Array.from(atob(e.name64.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0))
    : new TextEncoder().encode(e.name)

/** The query naming `path`: as text when it is UTF-8, else its bytes in base64url. */
export function pathQuery(path: Path, key = "path"): string {
  const all = new Uint8Array(path.reduce((n, p, i) => n + p.length + (i ? 1 : 0), 0))
  let at = 0
  path.forEach((p, i) => {
    if (i) all[at++] = 0x2f
    all.set(p, at)
    at += p.length
  })
  try {
    return `${key}=${enc(new TextDecoder("utf-8", { fatal: true }).decode(all))}`
  } catch {
    const b64 = btoa(String.fromCharCode(...all))
      .replace(/\+/g, "-")
      .replace(/\//g, "_")
      .replace(/=+$/, "")
    return `${key}64=${b64}`
  }
}

/** A name as it is shown: control characters, and those that turn the text's direction, escaped. */
export const shown = (name: string) =>
  name.replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, (c) =>
    c === "\n" ? "\\n" : c === "\t" ? "\\t" : `\\u{${c.codePointAt(0)!.toString(16)}}`,
  )

const nameText = (path: Path) => (path.length ? path.map((p) => shown(new TextDecoder().decode(p))).join("/") : "/")

export interface FileTree {
  /** The API path of the tree's routes: /volumes/{name}/files or /containers/{id}/files. */
  base: string
  /** Whether entries may be renamed and removed (a volume's). */
  changes: boolean
  /** What the tree is, for headings and labels ("volume db_data"). */
  title: string
}

/** The file browser of `tree`. */
export function fileBrowser(tree: FileTree, signal: AbortSignal): HTMLElement {
  const root = h("section", { class: "files" })
  let path: Path = []
  let offset = 0
  let sort = "name"
  let order = "asc"
  const q = (p: Path, more = "") => `${pathQuery(p)}${more}`

  const show = () => {
    const crumbs = h(
      "nav",
      { class: "crumbs", "aria-label": "Folder" },
      h("button", { type: "button", class: "link", onclick: () => go([]) }, tree.title),
      path.map((p, i) => [
        " / ",
        h(
          "button",
          { type: "button", class: "link", onclick: () => go(path.slice(0, i + 1)) },
          shown(new TextDecoder().decode(p)),
        ),
      ]),
    )
    const list = h("div")
    const upload = h("input", { type: "file", multiple: true, "aria-label": "Files to upload", class: "sr-only" })
    const tar = h("input", {
      type: "file",
      accept: ".tar,application/x-tar",
      "aria-label": "A tar to unpack",
      class: "sr-only",
    })
    upload.addEventListener("change", () => void uploadFiles([...(upload.files ?? [])]))
    tar.addEventListener("change", () => void uploadTar(tar.files?.[0]))
    const tools = h(
      "div",
      { class: "toolbar" },
      h(
        "a",
        { class: "button small", href: apiUrl(`${tree.base}/archive?${q(path)}`), download: "" },
        "Download folder (tar)",
      ),
      action("New folder", newFolder, { done: refresh }),
      h("label", { class: "button small", "data-needs": "operator" }, "Upload files", upload),
      h("label", { class: "button small", "data-needs": "operator" }, "Upload a tar", tar),
    )
    render(root, crumbs, tools, list)
    void load(
      list,
      () =>
        get<Listing>(`${tree.base}?${q(path, `&offset=${offset}&limit=${PAGE}&sort=${sort}&order=${order}`)}`, {
          signal,
        }),
      (l) => [listingView(l), pager(l)],
    )
  }

  const go = (to: Path) => {
    path = to
    offset = 0
    show()
  }
  const refresh = () => show()

  const heading = (title: string, key: string) =>
    h(
      "button",
      {
        type: "button",
        class: "link",
        "aria-label": `Sort by ${title.toLowerCase()}`,
        onclick: () => {
          order = sort === key && order === "asc" ? "desc" : "asc"
          sort = key
          offset = 0
          show()
        },
      },
      title,
      sort === key ? (order === "asc" ? " ▲" : " ▼") : "",
    )

  function listingView(l: Listing): HTMLElement {
    const t = table(
      l.entries,
      [
        {
          title: "Name",
          cell: (e) => {
            const name = shown(e.name) + (e.kind === "folder" ? "/" : "")
            const at = [...path, bytesOfEntry(e)]
            if (e.kind === "folder")
              return h("button", { type: "button", class: "link mono", onclick: () => go(at) }, name)
            if (e.kind === "link")
              return h("span", { class: "mono" }, name, h("span", { class: "muted" }, ` → ${shown(e.target ?? "")}`))
            return h("span", { class: "mono" }, name)
          },
        },
        { title: "Kind", cell: (e) => e.kind },
        { title: "Size", cell: (e) => (e.kind === "folder" ? "—" : bytes(e.size)) },
        { title: "Mode", cell: (e) => h("span", { class: "mono" }, e.mode) },
        { title: "Owner", cell: (e) => `${e.uid}:${e.gid}` },
        { title: "Modified", cell: (e) => when(e.mtime) },
        { title: "Actions", cell: (e) => actions(e) },
      ],
      "This folder is empty.",
      `Files of ${tree.title} in ${nameText(path)}`,
    )
    // The headings sort.
    const ths = t.querySelectorAll("th")
    const keys: Record<string, string> = { Name: "name", Size: "size", Modified: "mtime" }
    for (const th of ths) {
      const key = keys[th.textContent ?? ""]
      if (key) {
        th.setAttribute("aria-sort", sort === key ? (order === "asc" ? "ascending" : "descending") : "none")
        render(th, heading(th.textContent!, key))
      }
    }
    return t
  }

  function actions(e: Entry): HTMLElement {
    const at = [...path, bytesOfEntry(e)]
    const label = shown(e.name)
    return h(
      "div",
      { class: "row-actions" },
      e.kind === "file" &&
        h(
          "a",
          {
            class: "button small",
            href: apiUrl(`${tree.base}/content?${q(at)}&download=true`),
            "aria-label": `Download ${label}`,
          },
          "Download",
        ),
      e.kind === "folder" &&
        h(
          "a",
          {
            class: "button small",
            href: apiUrl(`${tree.base}/archive?${q(at)}`),
            "aria-label": `Download ${label} as tar`,
          },
          "Tar",
        ),
      e.kind === "file" &&
        e.size <= TEXT_MAX &&
        h(
          "button",
          { type: "button", class: "small", "aria-label": `Edit ${label}`, onclick: () => void edit(at) },
          "Edit",
        ),
      tree.changes && action("Rename", () => rename(at, e), { label: `Rename ${label}`, done: refresh }),
      tree.changes &&
        action("Delete", () => del(`${tree.base}?${q(at)}`), {
          class: "small danger",
          confirm: `Delete ${nameText(at)}${e.kind === "folder" ? " and everything in it" : ""}?`,
          label: `Delete ${label}`,
          done: refresh,
        }),
    )
  }

  function pager(l: Listing): HTMLElement | null {
    if (l.total <= l.limit) return null
    const last = Math.min(l.offset + l.limit, l.total)
    return h(
      "div",
      { class: "pager" },
      h(
        "button",
        {
          type: "button",
          class: "small",
          disabled: l.offset === 0,
          onclick: () => ((offset = Math.max(0, offset - PAGE)), show()),
        },
        "Previous",
      ),
      h("span", { role: "status" }, ` ${l.offset + 1}–${last} of ${l.total} `),
      h(
        "button",
        { type: "button", class: "small", disabled: last >= l.total, onclick: () => ((offset += PAGE), show()) },
        "Next",
      ),
    )
  }

  async function ask(title: string, label: string, value = ""): Promise<string | null> {
    const input = h("input", { type: "text", value, "aria-label": label, class: "mono" })
    const answer = await modal(title, h("label", null, label, " ", input), (close) => [
      h("button", { type: "button", onclick: () => close("") }, "Cancel"),
      h("button", { type: "button", class: "primary", onclick: () => close("ok") }, "OK"),
    ])
    return answer === "ok" && input.value ? input.value : null
  }

  async function newFolder() {
    const name = await ask("New folder", "Name")
    if (name) await post(`${tree.base}/folder`, { ...params([...path, new TextEncoder().encode(name)]) })
  }

  async function rename(at: Path, e: Entry) {
    const name = await ask("Rename", "New name", e.name64 ? "" : e.name)
    if (!name) return
    const to = [...path, new TextEncoder().encode(name)]
    await post(`${tree.base}/rename`, { ...params(at, "from"), ...params(to, "to") })
  }

  async function uploadFiles(files: File[]) {
    for (const file of files) {
      const at = [...path, new TextEncoder().encode(file.name)]
      const res = await fetch(apiUrl(`${tree.base}/content?${q(at)}`), {
        method: "PUT",
        body: file,
        headers: { "content-type": "application/octet-stream" },
      })
      if (!res.ok)
        return toast(
          `Upload of ${file.name} failed: ${((await res.json().catch(() => ({}))) as any).error?.message ?? res.status}`,
          "error",
        )
    }
    toast(`Uploaded ${files.length} file${files.length === 1 ? "" : "s"}`)
    refresh()
  }

  async function uploadTar(file: File | undefined) {
    if (!file) return
    const res = await fetch(apiUrl(`${tree.base}/archive?${q(path)}`), {
      method: "POST",
      body: file,
      headers: { "content-type": "application/x-tar" },
    })
    if (!res.ok)
      return toast(
        `Unpacking ${file.name} failed: ${((await res.json().catch(() => ({}))) as any).error?.message ?? res.status}`,
        "error",
      )
    toast(`Unpacked ${file.name}`)
    refresh()
  }

  async function edit(at: Path) {
    const box = h("div", null, loading("Reading the file"))
    const closed = modal(`Edit ${nameText(at)}`, box, (close) => [
      h("button", { type: "button", onclick: () => close("") }, "Close"),
    ])
    let file: { text: string; version: string }
    try {
      file = await get(`${tree.base}/text?${q(at)}`, { signal })
    } catch (err) {
      return render(box, errorBox(err))
    }
    const editor = codeEditor(file.text, `Content of ${nameText(at)}`, { file: nameText(at) })
    const message = h("p", { role: "status" })
    const save = action(
      "Save",
      async () => {
        try {
          file.version = (
            await put(`${tree.base}/text`, { ...params(at), text: editor.value(), version: file.version })
          ).version
          message.textContent = "Saved."
        } catch (err) {
          if (!(err instanceof HttpError && err.code === "file_changed")) throw err
          message.textContent =
            "The file changed since it was opened: nothing was written. Load it again to see the change."
        }
      },
      { class: "primary", label: `Save ${nameText(at)}` },
    )
    const reload = h(
      "button",
      {
        type: "button",
        class: "small",
        onclick: async () => {
          file = await get(`${tree.base}/text?${q(at)}`, { signal })
          editor.set(file.text)
          message.textContent = "Loaded again."
        },
      },
      "Load again",
    )
    render(box, editor.el, h("div", { class: "toolbar" }, save, reload), message)
    await closed
    refresh()
  }

  /** A path for a JSON body: `path` or `path64` (under `key`). */
  function params(p: Path, key = "path"): Record<string, string> {
    const [name, value] = pathQuery(p, key).split("=") as [string, string]
    return { [name]: decodeURIComponent(value) }
  }

  show()
  return root
}

export function volumeFilesPage(main: HTMLElement, params: Record<string, string>, signal: AbortSignal): void {
  const name = params.name!
  render(
    main,
    h("p", null, h("a", { href: "#/volumes" }, "← Volumes")),
    h("h1", null, "Volume ", h("span", { class: "mono" }, name)),
    fileBrowser({ base: `/volumes/${enc(name)}/files`, changes: true, title: name }, signal),
  )
}

/** What changed in a container's filesystem against its image. */
export function containerChanges(pane: HTMLElement, id: string, signal: AbortSignal): void {
  void load(
    pane,
    () => get<{ path: string; kind: string }[]>(`/containers/${enc(id)}/changes`, { signal }),
    (changes) =>
      table(
        changes,
        [
          { title: "Path", cell: (c) => h("span", { class: "mono" }, shown(c.path)) },
          { title: "Change", cell: (c) => c.kind },
        ],
        "Nothing changed against the image.",
        "Changes against the image",
      ),
  )
}
