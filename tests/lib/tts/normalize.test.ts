// A table of normalisation cases per language: what is written, and what the back end is given.
import { expect, test } from "bun:test"
import { normalize, numberEn, ordinalEn } from "#lib/tts/normalize.ts"

const CASES: Record<string, [string, string][]> = {
  en: [
    ["See https://www.example.com/path?q=1 now.", "See example dot com now."],
    ["Mail jane.doe@mail.example.org today.", "Mail jane doe at mail dot example dot org today."],
    ["It costs $1,234.56 in total.", "It costs 1234 dollars and 56 cents in total."],
    ["A budget of £10k.", "A budget of 10 thousand pounds."],
    ["Only $1 left.", "Only 1 dollar left."],
    ["Population 1,234,567.", "Population 1234567."],
    ["Due 2024-03-15.", "Due March fifteenth, 2024."],
    ["Meet at 14:30 or 9:05 or 10:00.", "Meet at 14 30 or 9 oh 5 or 10 o'clock."],
    ["Add 1/2 cup and 3/8 inch.", "Add one half cup and 3 over 8 inch."],
    ["The 21st and 2nd and 3rd and 100th.", "The twenty-first and second and third and one hundredth."],
    ["Music of the 1990s and '80s and 2000s.", "Music of the nineteen nineties and eighties and two thousands."],
    [
      "Fruit, i.e. apples, e.g. red ones, vs. pears etc.",
      "Fruit, that is apples, for example red ones, versus pears et cetera",
    ],
    ["Dr. Who lives on St. James St. now.", "Doctor Who lives on Saint James Street now."],
    ["Rock & roll, 50% off, © 2024.", "Rock and roll, 50 percent off, copyright 2024."],
    ["Compute 5*3*2 first.", "Compute 5 times 3 times 2 first."],
    ["Call __init__ and my_func.", "Call dunder init and my func."],
  ],
  de: [
    ["Siehe https://example.de/seite bitte.", "Siehe example Punkt de bitte."],
    ["Das kostet 1.234,56 € heute.", "Das kostet 1234 Euro und 56 Cent heute."],
    ["Am 2024-03-15 um 14:30.", "Am 15. März 2024 um 14 Uhr 30."],
    ["Einwohner: 1.234.567.", "Einwohner: 1234567."],
    ["z.B. Äpfel, d.h. Obst usw.", "zum Beispiel Äpfel, das heißt Obst und so weiter"],
    ["50% und 1/2 Liter.", "50 Prozent und ein halb Liter."],
  ],
  fr: [
    ["Voir https://www.exemple.fr/page.", "Voir exemple point fr."],
    ["Il coûte 1 234,56 € ce matin.", "Il coûte 1234 euros et 56 centimes ce matin."],
    ["Le 2024-03-15 à 14:30.", "Le 15 mars 2024 à 14 heures 30."],
    ["Le 2024-05-01.", "Le premier mai 2024."],
    ["M. Dupont, p. ex. 50 % et 1/4.", "Monsieur Dupont, par exemple 50 pour cent et un quart."],
  ],
  es: [
    ["Mira https://ejemplo.es hoy.", "Mira ejemplo punto es hoy."],
    ["Cuesta 1.234,56 € ahora.", "Cuesta 1234 euros y 56 céntimos ahora."],
    ["El 2024-03-15 a las 14:30.", "El 15 de marzo de 2024 a las 14 y 30."],
    ["Sr. García, p. ej. 50% y 1/2.", "señor García, por ejemplo 50 por ciento y un medio."],
  ],
  zh: [
    ["访问 https://www.example.cn/a 吧。", "访问 example 点 cn 吧。"],
    ["价格是¥1,234。", "价格是1234元。"],
    ["日期是2024-03-15，时间14:30。", "日期是2024年3月15日，时间14点30分。"],
    ["增长了50%，占1/2。", "增长了百分之50，占二分之一。"],
  ],
  ja: [
    ["サイトは https://example.jp です。", "サイトは example ドット jp です。"],
    ["価格は¥1,234です。", "価格は1234円です。"],
    ["2024-03-15の14:30に会いましょう。", "2024年3月15日の14時30分に会いましょう。"],
    ["50%オフ、1/2です。", "50パーセントオフ、2分の1です。"],
  ],
  ar: [
    ["زر https://example.com اليوم.", "زر example نقطة com اليوم."],
    ["السعر $1,234 فقط.", "السعر 1234 دولار فقط."],
    ["الموعد 2024-03-15 الساعة 14:30.", "الموعد 15 مارس 2024 الساعة 14 و30 دقيقة."],
    ["خصم 50% و 1/2.", "خصم 50 بالمئة و نصف."],
  ],
}

for (const [lang, cases] of Object.entries(CASES)) {
  test(`normalisation table: ${lang}`, () => {
    for (const [written, said] of cases) expect({ written, said: normalize(written, lang) }).toEqual({ written, said })
  })
}

test("English number words", () => {
  expect(numberEn(0)).toBe("zero")
  expect(numberEn(1999)).toBe("one thousand nine hundred ninety-nine")
  expect(numberEn(2_000_015)).toBe("two million fifteen")
  expect(ordinalEn(12)).toBe("twelfth")
  expect(ordinalEn(40)).toBe("fortieth")
  expect(ordinalEn(101)).toBe("one hundred first")
})

test("long runs of odd characters are left as they are, an @ said as 'at' (their cost: bench/tts-text.ts)", () => {
  for (const text of [
    "1,".repeat(25000),
    "$".repeat(50000),
    "_a".repeat(25000),
    "x.".repeat(25000),
    "1/".repeat(25000),
  ])
    expect(normalize(text, "en")).toBe(text)
  expect(normalize("@.".repeat(25000), "en")).toBe(Array(25000).fill("at .").join(" "))
})
