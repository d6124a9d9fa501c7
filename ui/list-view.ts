// A list page's working parts, drawn from ui/lists.ts's logic: the search box, filters and sort
// above the table (kept in the page's address), the table with sortable headings and a checkbox per
// row, the bar of actions on the selected rows, and the dialog that confirms a bulk action naming
// every row, then shows each row's result as it comes.
import { errorText, h, modal, render, toast, type Column, type Needs } from "./dom.ts"
import { applyList, choicesOf, readState, writeState, type ListSpec, type ListState } from "./lists.ts"

export interface ListColumn<T> extends Column<T> {
  /** The sort (a key of the spec's sorts) its heading picks. */
  sort?: string
}

export interface BulkAction<T> {
  /** The verb, as the button and the dialog say it: "Stop". */
  label: string
  /** What became of a row, for its result: "stopped". */
  done: string
  /** The selected rows it acts on (the others are left out of it). */
  applies: (row: T) => boolean
  run?: (row: T) => Promise<unknown>
  /** Instead of a confirmation and a run per row: hands the rows to a dialog of its own. */
  open?: (rows: T[]) => void
  danger?: boolean
  needs?: Needs | null
  /** Said after the names, such as what cannot be undone. */
  warning?: string
}

export interface ListOptions<T> {
  /** What the rows are, plural and lowercase: "containers". */
  noun: string
  spec: ListSpec<T>
  columns: ListColumn<T>[]
  key: (row: T) => string
  name: (row: T) => string
  bulk?: BulkAction<T>[]
  empty: string
  /** Runs after each drawing of the table (to fill live cells). */
  drawn?: (table: HTMLElement) => void
  /** Runs when a bulk action has finished (to reload the list). */
  changed?: () => void
}

export interface ListView<T> {
  /** The search, filters, sort and count; above the table. */
  tools: HTMLElement
  /** The selection's actions and the table. */
  body: HTMLElement
  /** Shows these rows (a new load) through the state. */
  show(rows: T[]): void
  /** Draws the rows again (live values changed). */
  redraw(): void
  state(): ListState
}

/** The page's address without its list state, and its list state. */
const address = () => {
  const hash = location.hash.replace(/^#/, "")
  const at = hash.indexOf("?")
  return at < 0 ? { path: hash, query: "" } : { path: hash.slice(0, at), query: hash.slice(at + 1) }
}

const POOL = 4

export function listView<T>(o: ListOptions<T>): ListView<T> {
  const id = o.noun.replace(/\W+/g, "-")
  let state = readState(address().query, o.spec)
  let rows: T[] = []
  let loaded = false
  const selected = new Set<string>()

  const search = h("input", {
    type: "search",
    id: `${id}-search`,
    value: state.q,
    placeholder: "Search",
    autocomplete: "off",
    "aria-label": `Search ${o.noun}`,
  })
  const filterSelects = Object.entries(o.spec.filters ?? {}).map(([key, f]) => {
    const select = h("select", { id: `${id}-filter-${key}`, "data-filter": key })
    select.addEventListener("change", () => update({ filters: { ...state.filters, [key]: select.value } }))
    return {
      key,
      f,
      select,
      field: h("label", { class: "tool", for: `${id}-filter-${key}` }, h("span", null, f.label), select),
    }
  })
  const sortSelect = h(
    "select",
    { id: `${id}-sort` },
    Object.entries(o.spec.sorts).map(([key, s]) => h("option", { value: key }, s.label)),
  )
  const direction = h("button", { type: "button", class: "small", id: `${id}-direction` })
  const count = h("p", { class: "list-count muted", role: "status" })
  const bar = h("div", {
    class: "bulk-bar",
    role: "region",
    "aria-label": `Actions on the selected ${o.noun}`,
    hidden: true,
  })
  const table = h("div")

  search.addEventListener("input", () => update({ q: search.value }))
  sortSelect.addEventListener("change", () =>
    update({ sort: sortSelect.value, desc: Boolean(o.spec.sorts[sortSelect.value]?.desc) }),
  )
  direction.addEventListener("click", () => update({ desc: !state.desc }))

  function update(change: Partial<ListState>): void {
    state = { ...state, ...change }
    const query = writeState(state, o.spec)
    history.replaceState(history.state, "", `#${address().path}${query ? `?${query}` : ""}`)
    draw()
  }

  function drawTools(): void {
    for (const { key, f, select } of filterSelects) {
      const value = state.filters[key] ?? ""
      const choices = choicesOf(f, rows)
      // A value from the address that no row has now stays shown (and picked): the link asked for it.
      if (value && !choices.some(([v]) => v === value)) choices.push([value, value])
      render(
        select,
        h("option", { value: "" }, "All"),
        choices.map(([v, label]) => h("option", { value: v, selected: v === value }, label)),
      )
    }
    sortSelect.value = state.sort
    direction.textContent = state.desc ? "↓ Descending" : "↑ Ascending"
    direction.setAttribute("aria-label", `Order: ${state.desc ? "descending" : "ascending"} (switch)`)
  }

  function draw(): void {
    drawTools()
    if (!loaded) return
    const shown = applyList(rows, o.spec, state)
    const keys = new Set(rows.map(o.key))
    for (const k of selected) if (!keys.has(k)) selected.delete(k)
    count.textContent = `${shown.length === rows.length ? "" : `${shown.length} of `}${rows.length} ${rows.length === 1 ? o.noun.replace(/s$/, "") : o.noun}`
    drawBar(shown)
    if (!rows.length) return render(table, h("p", { class: "empty" }, o.empty))
    if (!shown.length)
      return render(
        table,
        h(
          "p",
          { class: "empty" },
          `No ${o.noun} match. `,
          h(
            "button",
            { type: "button", class: "link", onclick: () => (update({ q: "", filters: {} }), (search.value = "")) },
            "Show all",
          ),
        ),
      )
    render(table, drawTable(shown))
    o.drawn?.(table)
  }

  function drawTable(shown: T[]): HTMLElement {
    const bulk = Boolean(o.bulk?.length)
    // A role that may do none of the bulk actions is offered no selection (see Needs in dom.ts).
    const needs = o.bulk?.some((a) => a.needs === null)
      ? false
      : o.bulk?.every((a) => a.needs === "admin")
        ? "admin"
        : "operator"
    const boxes = new Map<string, [HTMLInputElement, HTMLTableRowElement]>()
    const all = h("input", { type: "checkbox", "aria-label": `Select all ${o.noun} shown` })
    // A tick changes the selection, its row and the bar, nothing else: the focus stays where it is.
    const picked = () => {
      for (const [k, [box, tr]] of boxes) {
        box.checked = selected.has(k)
        tr.classList.toggle("selected", box.checked)
      }
      all.checked = shown.every((r) => selected.has(o.key(r)))
      drawBar(shown)
    }
    all.addEventListener("change", () => {
      for (const r of shown) all.checked ? selected.add(o.key(r)) : selected.delete(o.key(r))
      picked()
    })
    const heading = (c: ListColumn<T>) => {
      if (!c.sort) return h("th", { scope: "col", class: c.class }, c.title)
      const current = state.sort === c.sort
      const pick = () =>
        update(current ? { desc: !state.desc } : { sort: c.sort!, desc: Boolean(o.spec.sorts[c.sort!]?.desc) })
      return h(
        "th",
        { scope: "col", class: c.class, "aria-sort": current ? (state.desc ? "descending" : "ascending") : false },
        h(
          "button",
          { type: "button", class: "sort-head", onclick: pick },
          c.title,
          current && h("span", { "aria-hidden": "true" }, state.desc ? " ↓" : " ↑"),
        ),
      )
    }
    const row = (r: T) => {
      const k = o.key(r)
      const box = h("input", { type: "checkbox", "aria-label": `Select ${o.name(r)}` })
      box.addEventListener("change", () => {
        box.checked ? selected.add(k) : selected.delete(k)
        picked()
      })
      const tr = h(
        "tr",
        null,
        bulk && h("td", { class: "pick", "data-needs": needs }, box),
        o.columns.map((c) => h("td", { class: c.class, "data-label": c.title }, c.cell(r))),
      )
      boxes.set(k, [box, tr])
      return tr
    }
    const el = h(
      "div",
      { class: "table-wrap" },
      h(
        "table",
        null,
        h("caption", { class: "sr-only" }, o.noun[0]!.toUpperCase() + o.noun.slice(1)),
        h(
          "thead",
          null,
          h(
            "tr",
            null,
            bulk && h("th", { scope: "col", class: "pick", "data-needs": needs }, all),
            o.columns.map(heading),
          ),
        ),
        h("tbody", null, shown.map(row)),
      ),
    )
    picked()
    return el
  }

  function drawBar(shown: T[]): void {
    const picked = shown.filter((r) => selected.has(o.key(r)))
    bar.hidden = !picked.length
    if (!picked.length) return render(bar)
    render(
      bar,
      h("span", null, `${picked.length} selected`),
      (o.bulk ?? []).map((a) => {
        const target = picked.filter(a.applies)
        return h(
          "button",
          {
            type: "button",
            class: a.danger ? "small danger" : "small",
            disabled: !target.length,
            "data-needs": a.needs === undefined ? "operator" : a.needs,
            onclick: () => (a.open ? a.open(target) : void confirmAndRun(a, target)),
          },
          `${a.label} (${target.length})`,
        )
      }),
      h(
        "button",
        { type: "button", class: "small link", onclick: () => (selected.clear(), draw()) },
        "Clear selection",
      ),
    )
  }

  async function confirmAndRun(a: BulkAction<T>, target: T[]): Promise<void> {
    const items = target.map((r) => ({ row: r, result: h("span", { class: "bulk-result muted" }) }))
    const summary = h("p", { class: "bulk-summary", role: "status" })
    const title = `${a.label} ${target.length} ${target.length === 1 ? o.noun.replace(/s$/, "") : o.noun}`
    await modal(
      title,
      [
        h("p", null, `${a.label} these ${o.noun}?`, a.warning ? ` ${a.warning}` : ""),
        h(
          "ul",
          { class: "bulk-list" },
          items.map((i) => h("li", null, h("span", { class: "mono" }, o.name(i.row)), " ", i.result)),
        ),
        summary,
      ],
      (close) => {
        const cancel = h("button", { type: "button", onclick: () => close("cancel") }, "Cancel")
        const go = h("button", { type: "button", class: a.danger ? "danger" : "primary" }, a.label)
        go.addEventListener("click", async () => {
          go.disabled = cancel.disabled = true
          go.setAttribute("aria-busy", "true")
          summary.textContent = `${a.label}: ${target.length} to go…`
          const failed = await runAll(a, items)
          // Done: the selection goes and the list reloads behind the dialog, which stays to show the results.
          selected.clear()
          draw()
          o.changed?.()
          const ok = items.length - failed
          summary.textContent = [ok && `${ok} ${a.done}`, failed && `${failed} failed`].filter(Boolean).join(", ") + "."
          toast(`${title}: ${summary.textContent}`, failed ? "error" : "info")
          go.remove()
          cancel.textContent = "Close"
          cancel.disabled = false
          cancel.focus()
        })
        return [cancel, go]
      },
    )
  }

  /** Runs the action on each row, a few at a time, each row's result shown as it comes; answers how many failed. */
  async function runAll(a: BulkAction<T>, items: { row: T; result: HTMLElement }[]): Promise<number> {
    let failed = 0
    let next = 0
    const worker = async () => {
      while (next < items.length) {
        const item = items[next++]!
        item.result.textContent = "…"
        try {
          await a.run!(item.row)
          item.result.textContent = a.done
          item.result.className = "bulk-result ok"
        } catch (err) {
          failed++
          item.result.textContent = `failed: ${errorText(err)}`
          item.result.className = "bulk-result error-text"
        }
      }
    }
    await Promise.all(Array.from({ length: Math.min(POOL, items.length) }, worker))
    return failed
  }

  drawTools()
  return {
    tools: h(
      "div",
      { class: "list-tools", role: "search", "aria-label": `Search and filter ${o.noun}` },
      h("label", { class: "tool grow", for: search.id }, h("span", null, "Search"), search),
      filterSelects.map((f) => f.field),
      h("label", { class: "tool", for: sortSelect.id }, h("span", null, "Sort by"), sortSelect),
      direction,
      count,
    ),
    body: h("div", null, bar, table),
    show(next: T[]) {
      rows = next
      loaded = true
      draw()
    },
    redraw: draw,
    state: () => state,
  }
}
