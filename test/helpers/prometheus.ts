/** One sample of the Prometheus text exposition format. */
export interface Sample {
  name: string
  labels: Record<string, string>
  value: number
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g

/** Parses the text Prometheus scrapes; a line that is neither a comment nor a sample throws. */
export function parseMetrics (text: string): Sample[] {
  const samples: Sample[] = []
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue
    const match = SAMPLE.exec(line)
    if (!match) throw new Error(`not a sample: ${line}`)
    const labels: Record<string, string> = {}
    for (const [, name, value] of (match[2] ?? '').matchAll(LABEL)) labels[name!] = value!.replace(/\\(.)/g, (_all, c: string) => c === 'n' ? '\n' : c)
    samples.push({ name: match[1]!, labels, value: match[3] === '+Inf' ? Infinity : Number(match[3]) })
  }
  return samples
}

/** The value of the one sample with this name and these labels (among others), or 0 when there is none. */
export function valueOf (samples: readonly Sample[], name: string, labels: Record<string, string> = {}): number {
  const matching = samples.filter((sample) => sample.name === name &&
    Object.entries(labels).every(([label, value]) => sample.labels[label] === value))
  if (matching.length > 1) throw new Error(`${matching.length} samples of ${name} match ${JSON.stringify(labels)}`)
  return matching[0]?.value ?? 0
}
