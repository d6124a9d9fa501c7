// promtool's verdict on a Prometheus exposition (`promtool check metrics`): its exit code and what it printed.
export async function promtool(text: string): Promise<{ code: number; output: string }> {
  const proc = Bun.spawn(["promtool", "check", "metrics"], {
    stdin: new TextEncoder().encode(text),
    stdout: "pipe",
    stderr: "pipe",
  })
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ])
  return { code, output: out + err }
}
