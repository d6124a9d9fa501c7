// Lists people can work with: a list's search, filters and sort, applied to its rows, and kept in the
// page's address after a "?" (#/containers?q=web&state=running&sort=-cpu), so a reload or a shared
// link shows the same rows. Pure: no DOM (ui/list-view.ts draws it).

export type Choice = [value: string, label: string]

export interface FilterSpec<T> {
  label: string
  /** The values to pick from, with their labels; from the rows when a function. */
  choices: Choice[] | ((rows: T[]) => Choice[])
  test: (row: T, value: string) => boolean
}

export interface SortSpec<T> {
  label: string
  /** What rows are ordered by; null (no value, such as the CPU of a stopped container) goes last either way. */
  value: (row: T) => string | number | null
  /** The direction a first pick of this sort takes: numbers read best largest first. */
  desc?: boolean
}

export interface ListSpec<T> {
  /** The text the search looks in. */
  text: (row: T) => string
  filters?: Record<string, FilterSpec<T>>
  sorts: Record<string, SortSpec<T>>
  /** The sort when the address names none (else the first). */
  sort?: string
}

export interface ListState {
  q: string
  /** Filter key → value; a filter not set is absent. */
  filters: Record<string, string>
  sort: string
  desc: boolean
}

const defaultSort = <T>(spec: ListSpec<T>) => spec.sort ?? Object.keys(spec.sorts)[0]!

/** The state a query string ("q=web&state=running&sort=-name") names; what it does not name, or names wrongly, is the default. */
export function readState<T>(query: string, spec: ListSpec<T>): ListState {
  const p = new URLSearchParams(query)
  const filters: Record<string, string> = {}
  for (const key of Object.keys(spec.filters ?? {})) {
    const value = p.get(key)
    if (value) filters[key] = value
  }
  const sortParam = p.get("sort") ?? ""
  const sortKey = sortParam.replace(/^-/, "")
  const sort = sortKey in spec.sorts ? sortKey : defaultSort(spec)
  const desc = sortKey in spec.sorts ? sortParam.startsWith("-") : Boolean(spec.sorts[sort]?.desc)
  return { q: p.get("q") ?? "", filters, sort, desc }
}

/** The query string of a state, defaults left out ("" for the default state). */
export function writeState<T>(state: ListState, spec: ListSpec<T>): string {
  const p = new URLSearchParams()
  if (state.q.trim()) p.set("q", state.q)
  for (const key of Object.keys(spec.filters ?? {})) if (state.filters[key]) p.set(key, state.filters[key]!)
  const sort = defaultSort(spec)
  if (state.sort !== sort || state.desc !== Boolean(spec.sorts[sort]?.desc))
    p.set("sort", `${state.desc ? "-" : ""}${state.sort}`)
  return p.toString()
}

/** Every word of the search in the row's text, case aside. */
export function matches(text: string, q: string): boolean {
  const hay = text.toLowerCase()
  return q
    .toLowerCase()
    .split(/\s+/)
    .filter(Boolean)
    .every((w) => hay.includes(w))
}

function compare(a: string | number | null, b: string | number | null): number {
  if (typeof a === "number" && typeof b === "number") return a - b
  return String(a).localeCompare(String(b), undefined, { numeric: true, sensitivity: "base" })
}

/** The rows the state shows, in its order (rows that compare equal keep theirs). */
export function applyList<T>(rows: T[], spec: ListSpec<T>, state: ListState): T[] {
  const filters = Object.entries(state.filters).flatMap(([key, value]) =>
    spec.filters?.[key] && value ? [[spec.filters[key]!, value] as const] : [],
  )
  const shown = rows.filter((r) => matches(spec.text(r), state.q) && filters.every(([f, value]) => f.test(r, value)))
  const by = spec.sorts[state.sort] ?? spec.sorts[defaultSort(spec)]!
  const keyed = shown.map((row) => ({ row, v: by.value(row) }))
  keyed.sort((x, y) => {
    if (x.v === null || y.v === null) return x.v === null ? (y.v === null ? 0 : 1) : -1
    return state.desc ? compare(y.v, x.v) : compare(x.v, y.v)
  })
  return keyed.map((k) => k.row)
}

/** A filter's choices for these rows. */
export const choicesOf = <T>(f: FilterSpec<T>, rows: T[]): Choice[] =>
  typeof f.choices === "function" ? f.choices(rows) : f.choices

/** The distinct values of a field, sorted, as choices (each its own label). */
export const distinct = <T>(rows: T[], value: (row: T) => string | null | undefined): Choice[] =>
  [...new Set(rows.map(value).filter((v): v is string => !!v))].sort((a, b) => a.localeCompare(b)).map((v) => [v, v])
