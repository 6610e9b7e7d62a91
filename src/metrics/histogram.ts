import type { Histogram, Registry } from 'prom-client'

/** One series of a histogram: its label values and what it has observed. */
export class Series {
  /** Observations per bucket, not cumulative; the last counts those above every bound. */
  readonly #counts: Float64Array
  #sum = 0

  constructor (readonly labels: Readonly<Record<string, string>>, readonly bounds: readonly number[]) {
    this.#counts = new Float64Array(bounds.length + 1)
  }

  observe (value: number): void {
    const { bounds } = this
    let i = 0
    while (i < bounds.length && value > bounds[i]!) i++
    this.#counts[i]!++
    this.#sum += value
  }

  get sum (): number {
    return this.#sum
  }

  /** Cumulative counts, one per bound and then the total (`le="+Inf"`). */
  cumulative (): number[] {
    let total = 0
    return Array.from(this.#counts, (count) => total += count)
  }
}

interface Sample {
  metricName: string
  labels: Record<string, string | number>
  value: number
}

/**
 * A Prometheus histogram whose series its callers keep: an observation is a bucket search and two
 * additions, where prom-client's validates and hashes the labels each time (0.6 to 0.9 µs here, twice
 * per uncached read and more per write). prom-client renders it with the registry's other metrics.
 * Label values must come from a bounded set: every distinct combination is a series kept for good.
 */
export class SeriesHistogram {
  readonly type = 'histogram'
  readonly #series = new Map<string, Series>()

  constructor (readonly name: string, readonly help: string, readonly labelNames: readonly string[], readonly bounds: readonly number[]) {}

  /** The series of these label values (in labelNames' order), made on first use. */
  series (...values: string[]): Series {
    const key = values.join('\u0000')
    let series = this.#series.get(key)
    if (series === undefined) {
      series = new Series(Object.fromEntries(this.labelNames.map((name, i) => [name, values[i] ?? ''])), this.bounds)
      this.#series.set(key, series)
    }
    return series
  }

  /** What the registry renders (prom-client's metric protocol). */
  async get () {
    const values: Sample[] = []
    for (const series of this.#series.values()) {
      const cumulative = series.cumulative()
      this.bounds.forEach((bound, i) => values.push({ metricName: `${this.name}_bucket`, labels: { ...series.labels, le: bound }, value: cumulative[i]! }))
      const count = cumulative.at(-1)!
      values.push({ metricName: `${this.name}_bucket`, labels: { ...series.labels, le: '+Inf' }, value: count })
      values.push({ metricName: `${this.name}_sum`, labels: series.labels, value: series.sum })
      values.push({ metricName: `${this.name}_count`, labels: series.labels, value: count })
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: 'sum' }
  }

  reset (): void {
    this.#series.clear()
  }

  /** Adds it to a prom-client registry, which takes any object with this protocol. */
  registerIn (registry: Registry): this {
    registry.registerMetric(this as unknown as Histogram)
    return this
  }
}
