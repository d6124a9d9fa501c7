// The QR code an authenticator app reads at enrolment, as an SVG (`qrcode`). A module of its own, so
// that only the enrolment's handler loads it: with its PNG encoder it is a tenth of what a start
// would load otherwise.
import QRCode from "qrcode"

/** The QR code of `text` as an SVG data: URL. */
export async function qrDataUrl(text: string): Promise<string> {
  const svg = await QRCode.toString(text, { type: "svg", errorCorrectionLevel: "M", margin: 2 })
  return `data:image/svg+xml;base64,${Buffer.from(svg).toString("base64")}`
}
