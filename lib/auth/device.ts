// What a session's User-Agent says of the device, in a few words ("Firefox on Linux", "curl"): the
// sessions list shows it beside the address. A handful of patterns rather than a parser library:
// only the browser's family and the system are wanted, and an agent none matches is shown as sent.

const BROWSERS: [RegExp, string][] = [
  [/\bEdg(e|A|iOS)?\//, "Edge"],
  [/\bOPR\//, "Opera"],
  [/\bFirefox\/|\bFxiOS\//, "Firefox"],
  [/\bChrom(e|ium)\/|\bCriOS\//, "Chrome"],
  [/\bVersion\/[\d.]+.*\bSafari\//, "Safari"],
  [/^curl\//, "curl"],
  [/^Wget\//i, "Wget"],
  [/^python-requests\//i, "Python requests"],
  [/^Bun\//, "Bun"],
  [/^node/i, "Node.js"],
  [/^Go-http-client\//, "Go"],
]

const SYSTEMS: [RegExp, string][] = [
  [/\bAndroid\b/, "Android"],
  [/\b(iPhone|iPad|iPod)\b/, "iOS"],
  [/\bMac OS X\b|\bMacintosh\b/, "macOS"],
  [/\bWindows\b/, "Windows"],
  [/\bCrOS\b/, "ChromeOS"],
  [/\bLinux\b|\bX11\b/, "Linux"],
]

/** The device a User-Agent names, in words; "unknown" without one. */
export function deviceOf(agent: string | undefined): string {
  if (!agent) return "unknown"
  const browser = BROWSERS.find(([re]) => re.test(agent))?.[1]
  const system = SYSTEMS.find(([re]) => re.test(agent))?.[1]
  if (browser && system) return `${browser} on ${system}`
  return browser ?? system ?? agent.slice(0, 60)
}
