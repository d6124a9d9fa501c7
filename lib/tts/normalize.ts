// Text as a person reads it aloud, per language, before it reaches a back end (the cue keeps the text
// as written). Tables, not cleverness: URLs and e-mail addresses read as their host ("example dot
// com"), numbers with the language's separators, currencies ($1,234.56, £10k), ISO dates, times,
// common fractions, English ordinals and decades, abbreviations, symbols; `5*3*2` and `__init__`.
// Plain digits are left to the back ends, which read them in their own language (flite in English,
// espeak-ng in each of its languages). Entities are decoded earlier (markdown.ts, `entities`).
// tests/lib/tts/normalize.test.ts holds a table of cases per language.

type Lang = "en" | "de" | "fr" | "es" | "zh" | "ja" | "ar"

interface Table {
  dot: string
  at: string
  and: string
  months: string[]
  date(y: number, m: number, d: number): string
  time(h: number, min: number): string
  currency: Record<string, [one: string, many: string, cent?: string]>
  /** Thousands: 10k, 2.5M. */
  scale: Record<string, string>
  fractions: Record<string, string>
  over: string
  times: string
  percent(n: string): string
  symbols: Record<string, string>
  abbreviations: [RegExp, string][]
  /** Thousands separators to drop and the decimal mark, as the language writes numbers. */
  grouping: RegExp
  decimal: string
}

const EN_MONTHS = "January February March April May June July August September October November December".split(" ")

const TABLES: Record<Lang, Table> = {
  en: {
    dot: "dot",
    at: "at",
    and: "and",
    months: EN_MONTHS,
    date: (y, m, d) => `${EN_MONTHS[m - 1]} ${ordinalEn(d)}, ${y}`,
    time: (h, min) => (min === 0 ? `${h} o'clock` : min < 10 ? `${h} oh ${min}` : `${h} ${min}`),
    currency: {
      $: ["dollar", "dollars", "cents"],
      "£": ["pound", "pounds", "pence"],
      "€": ["euro", "euros", "cents"],
      "¥": ["yen", "yen"],
    },
    scale: { k: "thousand", K: "thousand", m: "million", M: "million", bn: "billion", B: "billion" },
    fractions: {
      "1/2": "one half",
      "1/3": "one third",
      "2/3": "two thirds",
      "1/4": "one quarter",
      "3/4": "three quarters",
      "1/8": "one eighth",
    },
    over: "over",
    times: "times",
    percent: (n) => `${n} percent`,
    symbols: {
      "&": "and",
      "%": "percent",
      "+": "plus",
      "=": "equals",
      "@": "at",
      "©": "copyright",
      "®": "registered",
      "™": "trademark",
      "°": "degrees",
      "#": "number",
      "×": "times",
      "→": "to",
      "≈": "about",
      "~": "about",
      "§": "section",
    },
    abbreviations: [
      [/\bi\.e\./gi, "that is"],
      [/\be\.g\./gi, "for example"],
      [/\bvs\./gi, "versus"],
      [/\betc\./gi, "et cetera"],
      [/\bapprox\./gi, "approximately"],
      [/\bDr\.(?=\s)/g, "Doctor"],
      [/\bMrs\.(?=\s)/g, "Missus"],
      [/\bMr\.(?=\s)/g, "Mister"],
      [/\bProf\.(?=\s)/g, "Professor"],
      [/\bNo\.(?=\s*\d)/g, "number"],
      [/\bSt\.(?=\s+\p{Lu})/gu, "Saint"], // St. James
      [/(?<=\p{Lu}\p{Ll}+\s+)St\./gu, "Street"], // James St.
      [/\bAve\./g, "Avenue"],
      [/\bMt\.(?=\s)/g, "Mount"],
    ],
    grouping: /(?<=\d),(?=\d{3}\b)/g,
    decimal: ".",
  },
  de: {
    dot: "Punkt",
    at: "ät",
    and: "und",
    months: "Januar Februar März April Mai Juni Juli August September Oktober November Dezember".split(" "),
    date: (y, m, d) => `${d}. ${TABLES.de.months[m - 1]} ${y}`,
    time: (h, min) => (min === 0 ? `${h} Uhr` : `${h} Uhr ${min}`),
    currency: {
      $: ["Dollar", "Dollar", "Cent"],
      "£": ["Pfund", "Pfund", "Pence"],
      "€": ["Euro", "Euro", "Cent"],
      "¥": ["Yen", "Yen"],
    },
    scale: { k: "tausend", K: "tausend", Mio: "Millionen", M: "Millionen", Mrd: "Milliarden" },
    fractions: {
      "1/2": "ein halb",
      "1/3": "ein Drittel",
      "2/3": "zwei Drittel",
      "1/4": "ein Viertel",
      "3/4": "drei Viertel",
    },
    over: "durch",
    times: "mal",
    percent: (n) => `${n} Prozent`,
    symbols: {
      "&": "und",
      "%": "Prozent",
      "+": "plus",
      "=": "gleich",
      "@": "ät",
      "©": "Copyright",
      "°": "Grad",
      "#": "Nummer",
      "×": "mal",
      "→": "nach",
      "~": "etwa",
      "§": "Paragraf",
    },
    abbreviations: [
      [/\bz\.\s?B\./g, "zum Beispiel"],
      [/\bd\.\s?h\./g, "das heißt"],
      [/\busw\./g, "und so weiter"],
      [/\bbzw\./g, "beziehungsweise"],
      [/\bca\./g, "circa"],
      [/\bNr\.(?=\s*\d)/g, "Nummer"],
      [/\bDr\.(?=\s)/g, "Doktor"],
      [/\bStr\./g, "Straße"],
    ],
    grouping: /(?<=\d)\.(?=\d{3}\b)/g,
    decimal: ",",
  },
  fr: {
    dot: "point",
    at: "arobase",
    and: "et",
    months: "janvier février mars avril mai juin juillet août septembre octobre novembre décembre".split(" "),
    date: (y, m, d) => `${d === 1 ? "premier" : d} ${TABLES.fr.months[m - 1]} ${y}`,
    time: (h, min) => (min === 0 ? `${h} heures` : `${h} heures ${min}`),
    currency: {
      $: ["dollar", "dollars", "cents"],
      "£": ["livre", "livres", "pence"],
      "€": ["euro", "euros", "centimes"],
      "¥": ["yen", "yens"],
    },
    scale: { k: "mille", K: "mille", M: "millions", Md: "milliards" },
    fractions: { "1/2": "un demi", "1/3": "un tiers", "2/3": "deux tiers", "1/4": "un quart", "3/4": "trois quarts" },
    over: "sur",
    times: "fois",
    percent: (n) => `${n} pour cent`,
    symbols: {
      "&": "et",
      "%": "pour cent",
      "+": "plus",
      "=": "égale",
      "@": "arobase",
      "©": "copyright",
      "°": "degrés",
      "#": "numéro",
      "×": "fois",
      "→": "vers",
      "~": "environ",
      "§": "paragraphe",
    },
    abbreviations: [
      [/\bp\.\s?ex\./g, "par exemple"],
      [/\betc\./g, "et cetera"],
      [/\bM\.(?=\s+\p{Lu})/gu, "Monsieur"],
      [/\bMme(?=\s)/g, "Madame"],
      [/\bMlle(?=\s)/g, "Mademoiselle"],
      [/\b1er\b/g, "premier"],
      [/\b1re\b/g, "première"],
      [/\bn°\s?(?=\d)/g, "numéro "],
    ],
    grouping: /(?<=\d)[\u0020\u00a0\u202f](?=\d{3}\b)/g,
    decimal: ",",
  },
  es: {
    dot: "punto",
    at: "arroba",
    and: "y",
    months: "enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre diciembre".split(" "),
    date: (y, m, d) => `${d} de ${TABLES.es.months[m - 1]} de ${y}`,
    time: (h, min) => (min === 0 ? `${h} en punto` : `${h} y ${min}`),
    currency: {
      $: ["dólar", "dólares", "centavos"],
      "£": ["libra", "libras", "peniques"],
      "€": ["euro", "euros", "céntimos"],
      "¥": ["yen", "yenes"],
    },
    scale: { k: "mil", K: "mil", M: "millones" },
    fractions: {
      "1/2": "un medio",
      "1/3": "un tercio",
      "2/3": "dos tercios",
      "1/4": "un cuarto",
      "3/4": "tres cuartos",
    },
    over: "entre",
    times: "por",
    percent: (n) => `${n} por ciento`,
    symbols: {
      "&": "y",
      "%": "por ciento",
      "+": "más",
      "=": "igual a",
      "@": "arroba",
      "©": "copyright",
      "°": "grados",
      "#": "número",
      "×": "por",
      "→": "hacia",
      "~": "aproximadamente",
      "§": "sección",
    },
    abbreviations: [
      [/\bp\.\s?ej\./g, "por ejemplo"],
      [/\betc\./g, "etcétera"],
      [/\bSra\.(?=\s)/g, "señora"],
      [/\bSr\.(?=\s)/g, "señor"],
      [/\bUd\./g, "usted"],
      [/\bUds\./g, "ustedes"],
      [/\bDr\.(?=\s)/g, "doctor"],
    ],
    grouping: /(?<=\d)\.(?=\d{3}\b)/g,
    decimal: ",",
  },
  zh: {
    dot: "点",
    at: "艾特",
    and: "和",
    months: Array.from({ length: 12 }, (_, i) => `${i + 1}月`),
    date: (y, m, d) => `${y}年${m}月${d}日`,
    time: (h, min) => (min === 0 ? `${h}点` : `${h}点${min}分`),
    currency: { $: ["美元", "美元"], "£": ["英镑", "英镑"], "€": ["欧元", "欧元"], "¥": ["元", "元"] },
    scale: { k: "千", K: "千", M: "百万", 万: "万" },
    fractions: { "1/2": "二分之一", "1/3": "三分之一", "2/3": "三分之二", "1/4": "四分之一", "3/4": "四分之三" },
    over: "分之",
    times: "乘",
    percent: (n) => `百分之${n}`,
    symbols: {
      "&": "和",
      "%": "百分号",
      "+": "加",
      "=": "等于",
      "@": "艾特",
      "©": "版权",
      "°": "度",
      "#": "号",
      "×": "乘",
      "→": "到",
      "~": "约",
    },
    abbreviations: [],
    grouping: /(?<=\d),(?=\d{3}\b)/g,
    decimal: ".",
  },
  ja: {
    dot: "ドット",
    at: "アット",
    and: "と",
    months: Array.from({ length: 12 }, (_, i) => `${i + 1}月`),
    date: (y, m, d) => `${y}年${m}月${d}日`,
    time: (h, min) => (min === 0 ? `${h}時` : `${h}時${min}分`),
    currency: { $: ["ドル", "ドル"], "£": ["ポンド", "ポンド"], "€": ["ユーロ", "ユーロ"], "¥": ["円", "円"] },
    scale: { k: "千", K: "千", M: "百万", 万: "万" },
    fractions: { "1/2": "2分の1", "1/3": "3分の1", "2/3": "3分の2", "1/4": "4分の1", "3/4": "4分の3" },
    over: "分の",
    times: "かける",
    percent: (n) => `${n}パーセント`,
    symbols: {
      "&": "アンド",
      "%": "パーセント",
      "+": "プラス",
      "=": "イコール",
      "@": "アット",
      "©": "コピーライト",
      "°": "度",
      "#": "番",
      "×": "かける",
      "→": "から",
      "~": "から",
    },
    abbreviations: [],
    grouping: /(?<=\d),(?=\d{3}\b)/g,
    decimal: ".",
  },
  ar: {
    dot: "نقطة",
    at: "آت",
    and: "و",
    months: "يناير فبراير مارس أبريل مايو يونيو يوليو أغسطس سبتمبر أكتوبر نوفمبر ديسمبر".split(" "),
    date: (y, m, d) => `${d} ${TABLES.ar.months[m - 1]} ${y}`,
    time: (h, min) => (min === 0 ? `${h}` : `${h} و${min} دقيقة`),
    currency: { $: ["دولار", "دولار"], "£": ["جنيه", "جنيه"], "€": ["يورو", "يورو"], "¥": ["ين", "ين"] },
    scale: { k: "ألف", K: "ألف", M: "مليون" },
    fractions: { "1/2": "نصف", "1/3": "ثلث", "2/3": "ثلثان", "1/4": "ربع", "3/4": "ثلاثة أرباع" },
    over: "على",
    times: "ضرب",
    percent: (n) => `${n} بالمئة`,
    symbols: {
      "&": "و",
      "%": "بالمئة",
      "+": "زائد",
      "=": "يساوي",
      "@": "آت",
      "©": "حقوق النشر",
      "°": "درجة",
      "#": "رقم",
      "×": "ضرب",
      "→": "إلى",
      "~": "حوالي",
    },
    abbreviations: [],
    grouping: /(?<=\d)[,٬](?=\d{3}\b)/g,
    decimal: ".",
  },
}

const ONES =
  "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen".split(
    " ",
  )
const TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split(" ")
const ORD_IRREGULAR: Record<string, string> = {
  one: "first",
  two: "second",
  three: "third",
  five: "fifth",
  eight: "eighth",
  nine: "ninth",
  twelve: "twelfth",
}

/** English words for 0 <= n < 1e12. */
export function numberEn(n: number): string {
  if (n < 20) return ONES[n]!
  if (n < 100) return TENS[Math.floor(n / 10)]! + (n % 10 ? `-${ONES[n % 10]}` : "")
  if (n < 1000) return `${ONES[Math.floor(n / 100)]} hundred` + (n % 100 ? ` ${numberEn(n % 100)}` : "")
  for (const [size, name] of [
    [1e9, "billion"],
    [1e6, "million"],
    [1e3, "thousand"],
  ] as const) {
    if (n >= size) return `${numberEn(Math.floor(n / size))} ${name}` + (n % size ? ` ${numberEn(n % size)}` : "")
  }
  return String(n)
}

/** "21" -> "twenty-first". */
export function ordinalEn(n: number): string {
  const words = numberEn(n)
  return words.replace(
    /([a-z]+)$/,
    (last) => ORD_IRREGULAR[last] ?? (last.endsWith("y") ? `${last.slice(0, -1)}ieth` : `${last}th`),
  )
}

/** "1990s" -> "nineteen nineties", "2000s" -> "two thousands", "'80s" -> "eighties". */
function decadeEn(century: number | undefined, decade: number): string {
  const plural = (w: string) => (w.endsWith("y") ? `${w.slice(0, -1)}ies` : `${w}s`)
  const tens = decade === 0 ? "hundreds" : decade === 1 ? "tens" : plural(TENS[decade]!)
  if (century === undefined) return tens
  if (century % 10 === 0 && decade === 0) return plural(numberEn(century * 100))
  return `${numberEn(century)} ${tens}`
}

const URL = /\b(?:https?:\/\/|ftp:\/\/|www\.)[^\s<>"'()[\]]+[^\s<>"'()[\].,;:!?]/gi
// Every pattern that could start inside a run of its own characters starts only at the run's start
// (a look-behind), so that no input makes them quadratic.
const EMAIL = /(?<![\w.+-])[\w.+-]+@([\w-]+(?:\.[\w-]+)+)\b/g

/** A host name as said: "www.example.com" -> "example dot com". */
function host(name: string, t: Table): string {
  return name
    .replace(/^www\./i, "")
    .split(".")
    .filter(Boolean)
    .join(` ${t.dot} `)
}

const asLang = (lang: string): Lang => (lang in TABLES ? (lang as Lang) : "en")

/** The language's number as the back end reads it: thousands separators dropped, the decimal mark kept. */
function plainNumber(text: string, t: Table): string {
  return text.replace(t.grouping, "")
}

export function normalize(text: string, language: string): string {
  const lang = asLang(language)
  const t = TABLES[lang]
  let s = text
  // URLs and e-mail addresses: their host
  s = s.replace(URL, (url) => host(url.replace(/^[a-z]+:\/\//i, "").split(/[/?#:]/)[0]!, t))
  s = s.replace(
    EMAIL,
    (address, domain: string) => `${address.split("@")[0]!.replace(/[._]/g, " ")} ${t.at} ${host(domain, t)}`,
  )
  // dates and times
  s = s.replace(/\b(\d{4})-(\d{2})-(\d{2})\b/g, (whole, y: string, m: string, d: string) => {
    const [yy, mm, dd] = [Number(y), Number(m), Number(d)]
    return mm >= 1 && mm <= 12 && dd >= 1 && dd <= 31 ? t.date(yy, mm, dd) : whole
  })
  s = s.replace(/\b([01]?\d|2[0-3]):([0-5]\d)(?::[0-5]\d)?\b(?!\d)/g, (_, h: string, m: string) =>
    t.time(Number(h), Number(m)),
  )
  // French groups thousands with spaces, often typed as plain ones: "1 234,56"
  if (lang === "fr")
    s = s.replace(/(?<!\d[ \u00a0\u202f]?)\d{1,3}(?:[ \u00a0\u202f]\d{3})+(?!\d)/g, (n) =>
      n.replace(/[ \u00a0\u202f]/g, ""),
    )
  // currencies: symbol before or after the amount, with k/M scales
  const scales = Object.keys(t.scale)
    .sort((a, b) => b.length - a.length)
    .join("|")
  const money = (symbol: string, amount: string, scale: string | undefined) => {
    const [one, many, cent] = t.currency[symbol]!
    const plain = plainNumber(amount, t)
    const [whole, fraction] = plain.split(t.decimal)
    const scaled = scale ? ` ${t.scale[scale]}` : ""
    const unit = !scale && whole === "1" && !fraction ? one : many
    if (fraction && /^\d{2}$/.test(fraction) && cent && !scale)
      return `${whole} ${unit} ${t.and} ${Number(fraction)} ${cent}`
    return lang === "zh" || lang === "ja" ? `${plain}${scaled}${unit}` : `${plain}${scaled} ${unit}`
  }
  s = s.replace(
    new RegExp(`([$£€¥])\\s?(\\d[\\d.,\\u00a0\\u202f]*\\d|\\d)(?:\\s?(${scales})\\b)?`, "gu"),
    (_, sym: string, amount: string, scale?: string) => money(sym, amount, scale),
  )
  s = s.replace(
    new RegExp(`(?<![\\d.,\\u00a0\\u202f])(\\d[\\d.,\\u00a0\\u202f]*\\d|\\d)(?:\\s?(${scales}))?\\s?([$£€¥])`, "gu"),
    (_, amount: string, scale: string | undefined, sym: string) => money(sym, amount, scale),
  )
  // numbers with separators
  s = s.replace(/(?<![\d.,\u00a0\u202f])\d[\d.,\u00a0\u202f]*\d/g, (n) => plainNumber(n, t))
  // percentages, fractions, products
  s = s.replace(/(?<![\d.,])(\d+(?:[.,]\d+)?)\s?%/g, (_, n: string) => t.percent(n))
  s = s.replace(
    /(?<![\d/])(\d+)\/(\d+)(?![\d/])/g,
    (whole, a: string, b: string) =>
      t.fractions[whole] ??
      (lang === "zh" ? `${b}${t.over}${a}` : lang === "ja" ? `${b}${t.over}${a}` : `${a} ${t.over} ${b}`),
  )
  s = s.replace(/(\d)\s?[*×]\s?(?=\d)/g, `$1 ${t.times} `)
  if (lang === "en") {
    s = s.replace(/\b(1\d|20)(\d)0s\b/g, (_, c: string, d: string) => decadeEn(Number(c), Number(d)))
    s = s.replace(/['’](\d)0s\b/g, (_, d: string) => decadeEn(undefined, Number(d)))
    s = s.replace(/\b(\d{1,9})(st|nd|rd|th)\b/g, (_, n: string) => ordinalEn(Number(n)))
  }
  // abbreviations
  for (const [pattern, words] of t.abbreviations) s = s.replace(pattern, words)
  // identifiers: __init__ -> "dunder init", snake_case -> "snake case"
  s = s.replace(/\b__([A-Za-z0-9]+(?:_[A-Za-z0-9]+)*)__\b/g, (_, name: string) => `dunder ${name.replace(/_/g, " ")}`)
  s = s.replace(/\b([A-Za-z][A-Za-z0-9]*)_(?=[A-Za-z0-9])/g, "$1 ")
  // symbols that stand alone or between words
  s = s.replace(/[&+=@©®™°#×→≈~§%]/g, (c, at: number) => {
    const word = t.symbols[c]
    if (!word) return c
    if (c === "#" && !/\d/.test(s[at + 1] ?? "")) return " " // a hash tag: read the tag
    const wide = lang === "zh" || lang === "ja"
    return wide ? word : ` ${word} `
  })
  return s.replace(/\s+/g, " ").trim()
}
