// Worker thread of the YAML parser (lib/stacks/yaml.ts): text in, the parsed value (or the volume
// entries of a compose file, with where they are written) out, or the parser's message.
import { isMap, isScalar, isSeq, parse, parseDocument, type Scalar } from "yaml"
import type { ThreadReply } from "../threads/worker.ts"
import { YAML_OPTIONS, yamlOptions, type VolumeEntryAt, type YamlRequest } from "./yaml.ts"

declare const self: Worker

/** Each service's `volumes` entry that is a string, or a map with a string `source`, and the offsets of that string. */
function volumes(text: string): VolumeEntryAt[] {
  const doc = parseDocument(text, YAML_OPTIONS)
  if (doc.errors.length) throw doc.errors[0]
  const out: VolumeEntryAt[] = []
  const services = doc.get("services")
  if (!isMap(services)) return out
  for (const item of services.items) {
    const service = String(isScalar(item.key) ? item.key.value : item.key)
    const entries = isMap(item.value) ? item.value.get("volumes") : undefined
    if (!isSeq(entries)) continue
    for (const entry of entries.items) {
      const short = isScalar(entry) && typeof entry.value === "string"
      const node = (short ? entry : isMap(entry) ? entry.get("source", true) : undefined) as Scalar | undefined
      if (!isScalar(node) || typeof node.value !== "string" || !node.range) continue
      out.push({ service, short, value: node.value, start: node.range[0], end: node.range[1] })
    }
  }
  return out
}

self.onmessage = ({ data }: MessageEvent<YamlRequest>) => {
  try {
    self.postMessage({
      id: data.id,
      value: data.task === "parse" ? parse(data.text, yamlOptions(data.version)) : volumes(data.text),
    } satisfies ThreadReply<unknown>)
  } catch (err) {
    self.postMessage({
      id: data.id,
      error: err instanceof Error ? err.message : String(err),
    } satisfies ThreadReply<unknown>)
  }
}
