// The gateway against nginx: 1 GiB uploaded through each to the same upstream, chunked and with a
// Content-Length, in the same run. Prints each throughput as a ratio to nginx (target >= 0.8) and
// the gateway's peak RSS during the uploads, sampled from /proc (target < 100 MiB, flat in size).
// Run: bun bench/gateway.ts [GiB]   (needs Debian's nginx-light; no container engine is used)
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { freePort, startService } from "../tests/support/service.ts"
import { rssMiB } from "./support.ts"

const MiB = 1024 * 1024
const size = Number(process.argv[2] ?? 1) * 1024 * MiB
const work = mkdtempSync(join(tmpdir(), "hm-bench-gateway-"))

/** The upstream in its own process, so it does not share a thread with the client: counts what it receives. */
const upstreamPort = await freePort()
const upstream = Bun.spawn(
  [
    "bun",
    "-e",
    `Bun.serve({ hostname: "127.0.0.1", port: ${upstreamPort}, maxRequestBodySize: Number.MAX_SAFE_INTEGER, idleTimeout: 0, async fetch(req) {
    if (new URL(req.url).pathname === "/api/health") return Response.json({ server_id: "bench-upstream" })
    let bytes = 0
    for await (const c of req.body ?? []) bytes += c.length
    return Response.json({ bytes, chunked: req.headers.get("transfer-encoding") === "chunked" })
  } })`,
  ],
  { stdout: "inherit", stderr: "inherit" },
)

const nginxPort = await freePort()
for (const d of ["tmp", "logs"]) mkdirSync(join(work, d))
writeFileSync(
  join(work, "nginx.conf"),
  `daemon off;
worker_processes 1;
pid ${work}/nginx.pid;
error_log ${work}/logs/error.log;
events { worker_connections 64; }
http {
  access_log off;
  client_body_temp_path ${work}/tmp/body; proxy_temp_path ${work}/tmp/proxy; fastcgi_temp_path ${work}/tmp/fcgi;
  uwsgi_temp_path ${work}/tmp/uwsgi; scgi_temp_path ${work}/tmp/scgi;
  server {
    listen 127.0.0.1:${nginxPort};
    client_max_body_size 0;
    location / {
      proxy_pass http://127.0.0.1:${upstreamPort};
      proxy_http_version 1.1;
      proxy_request_buffering off;
      proxy_buffering off;
    }
  }
}
`,
)
const nginx = Bun.spawn(["nginx", "-p", work, "-c", join(work, "nginx.conf"), "-e", join(work, "logs/error.log")], {
  stdout: "inherit",
  stderr: "inherit",
})

const gateway = await startService({ DOCKER_HOST: `unix://${work}/no-engine.sock` })
const token = (await (await fetch(`${gateway.url}/api/cluster/token`, { method: "POST" })).json()).token
await fetch(`${gateway.url}/api/cluster/register`, {
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify({
    token,
    server_id: "bench-upstream",
    name: "up",
    advertise: `http://127.0.0.1:${upstreamPort}`,
  }),
})
for (
  let i = 0;
  i < 100 &&
  (await fetch(`http://127.0.0.1:${nginxPort}/api/health`).then(
    (r) => !r.ok,
    () => true,
  ));
  i++
)
  await Bun.sleep(50)

const chunk = new Uint8Array(MiB).fill(0x5a)
function body(bytes: number): ReadableStream<Uint8Array> {
  let sent = 0
  return new ReadableStream({
    pull(c) {
      if (sent >= bytes) return c.close()
      c.enqueue(chunk)
      sent += MiB
    },
  })
}

/** Seconds to upload `bytes` to url; with `pid`, also the peak RSS of that process meanwhile. */
async function upload(
  url: string,
  bytes: number,
  sized: boolean,
  pid?: number,
): Promise<{ seconds: number; peakMiB: number }> {
  let peakMiB = 0
  let sampling = pid !== undefined
  const sampler = (async () => {
    while (sampling) {
      peakMiB = Math.max(peakMiB, rssMiB(pid!))
      await Bun.sleep(10)
    }
  })()
  const started = performance.now()
  const res = await fetch(url, {
    method: "PUT",
    body: body(bytes),
    headers: sized ? { "content-length": String(bytes) } : {},
    duplex: "half",
  } as RequestInit)
  const got = (await res.json()) as { bytes: number; chunked: boolean }
  const seconds = (performance.now() - started) / 1000
  sampling = false
  await sampler
  if (got.bytes !== bytes || got.chunked === sized) throw new Error(`${url}: upstream saw ${JSON.stringify(got)}`)
  return { seconds, peakMiB }
}

const best = (xs: number[]) => Math.min(...xs)
const gib = (size / 1024 / MiB).toFixed(2)
try {
  const idleMiB = rssMiB(gateway.proc.pid)
  const small = await upload(`${gateway.url}/api/nodes/up/proxy/upload`, size / 8, true, gateway.proc.pid)
  console.log(`gateway vs nginx (proxy_request_buffering off), ${gib} GiB per upload, best of 2 each`)
  let peakMiB = 0
  for (const sized of [false, true]) {
    const times = { nginx: [] as number[], gateway: [] as number[] }
    for (let round = 0; round < 2; round++) {
      times.nginx.push((await upload(`http://127.0.0.1:${nginxPort}/upload`, size, sized)).seconds)
      const g = await upload(`${gateway.url}/api/nodes/up/proxy/upload`, size, sized, gateway.proc.pid)
      times.gateway.push(g.seconds)
      peakMiB = Math.max(peakMiB, g.peakMiB)
    }
    const mibps = (s: number) => (size / MiB / s).toFixed(0)
    const ratio = best(times.nginx) / best(times.gateway)
    console.log(
      `${sized ? "content-length" : "chunked       "}  nginx ${mibps(best(times.nginx))} MiB/s  gateway ${mibps(best(times.gateway))} MiB/s  ratio ${ratio.toFixed(2)} (target >= 0.8)`,
    )
  }
  console.log(
    `gateway RSS: idle ${idleMiB.toFixed(0)} MiB, peak during ${gib} GiB uploads ${peakMiB.toFixed(0)} MiB (target < 100 MiB)`,
  )
  console.log(
    `gateway RSS flat in size: peak during a first ${(size / 8 / MiB).toFixed(0)} MiB upload ${small.peakMiB.toFixed(0)} MiB, ratio of peaks ${(peakMiB / small.peakMiB).toFixed(2)}`,
  )
} finally {
  await gateway.stop()
  nginx.kill()
  upstream.kill()
  await Promise.all([nginx.exited, upstream.exited])
  rmSync(work, { recursive: true, force: true })
}
