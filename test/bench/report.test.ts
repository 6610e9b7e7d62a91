import { describe, expect, it } from 'vitest'
import { CSV_HEADER, csvField, toCsv } from '../../bench/report/csv.js'
import { toMarkdown } from '../../bench/report/markdown.js'
import { escapeXml, toSvg } from '../../bench/report/svg.js'
import { measurement, row, run } from './rows.js'

/** Splits one CSV line into fields, honouring RFC 4180 quotes. */
function parseCsvLine (line: string): string[] {
  const fields: string[] = []
  let field = ''
  let quoted = false
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') { field += '"'; i++ } else if (c === '"') quoted = false
      else field += c
    } else if (c === '"') quoted = true
    else if (c === ',') { fields.push(field); field = '' } else field += c
  }
  fields.push(field)
  return fields
}

describe('CSV output', () => {
  it("has RedisJSON's published columns", () => {
    expect(CSV_HEADER.split(',')).toEqual(['title', 'concurrency', 'rate', 'average latency', '50.00%-tile',
      '90.00%-tile', '95.00%-tile', '99.00%-tile', '99.50%-tile', '100.00%-tile'])
  })

  it('writes the HTTP side, then the direct side, of each row', () => {
    const lines = toCsv([row('object-380b/get-sclr', 8000.456, { directRate: 40000, p99: 1.5 })]).trim().split('\n')
    expect(lines).toHaveLength(3)
    const [http, direct] = [parseCsvLine(lines[1]!), parseCsvLine(lines[2]!)]
    expect(http).toHaveLength(10)
    expect(http[0]).toBe('[object-380b] GET /docs/{key}/object-380b/get-sclr')
    expect(http.slice(1, 3)).toEqual(['16', '8000.46'])
    expect(http[7]).toBe('1.50')
    expect(direct[0]).toBe('[object-380b] JSON.GET {key} object-380b/get-sclr')
    expect(direct[2]).toBe('40000.00')
  })

  it('quotes titles holding quotes or commas, doubling the quotes', () => {
    expect(csvField('JSON.SET {key} [0] "foo"')).toBe('"JSON.SET {key} [0] ""foo"""')
    expect(csvField('a,b')).toBe('"a,b"')
    expect(csvField('plain')).toBe('plain')
    const titled = { ...row('array-1k4/set-0', 100), title: 'PUT /docs/{key}/0 "foo", again' }
    expect(parseCsvLine(toCsv([titled]).split('\n')[1]!)[0]).toBe('[array-1k4] PUT /docs/{key}/0 "foo", again')
  })
})

describe('markdown output', () => {
  const result = {
    ...run([row('ceiling/noop-c16', 10000, { cpu: 40 }), row('object-380b/get-sclr', 8000, { directRate: 40000, cpu: 50 })]),
    targets: [{ target: 'a | b', measured: '1', value: 1, threshold: '>= 1', status: 'pass' as const }]
  }
  const markdown = toMarkdown(result)

  it('has a targets table with escaped pipes', () => {
    expect(markdown).toContain('## Targets')
    expect(markdown).toContain('| a \\| b | 1 | 1 | >= 1 | pass |')
  })

  it('shows each row beside its direct figure and the ceiling', () => {
    const line = markdown.split('\n').find((l) => l.startsWith('| GET /docs/{key}/object-380b/get-sclr'))
    expect(line).toBeDefined()
    expect(line).toContain('| 8,000 | 40,000 | 0.20x | 0.80x |')
    expect(line).toContain('| 50.0 | - / - | 80 |')
  })

  it('gives rate and CPU over those of the ceiling measured right after a row, where it was', () => {
    const beside = toMarkdown(run([
      row('ceiling/noop-c16', 10000, { cpu: 40 }),
      row('floor/set-sclr', 6000, { cpu: 30, ceiling: { ...measurement(9000), cpuUsPerRequest: 20 } })
    ]))
    const line = beside.split('\n').find((l) => l.startsWith('| GET /docs/{key}/floor/set-sclr'))
    expect(line).toContain('| 0.60x | 0.67x; 1.50x |')
  })

  it('says how far the ceiling moved between the start and the end of the run', () => {
    const drifted = toMarkdown(run([row('ceiling/noop-c16', 10000), row('ceiling/noop-c16-end', 9000)]))
    expect(drifted).toContain('The ceiling moved -10.0% between the start and the end of the run')
  })

  it('lists failed rows first, loudly', () => {
    const failing = toMarkdown(run([row('numbers/incr', 10, { failures: ['service: non-2xx answers 409×3'] })]))
    expect(failing).toContain('## Failed rows')
    expect(failing).toContain('- **numbers/incr**: service: non-2xx answers 409×3')
  })
})

describe('SVG chart', () => {
  const rows = [
    row('ceiling/noop-c16', 10000),
    row('object-380b/get-sclr', 8000, { directRate: 40000 }),
    row('size-sweep/root-1mb', 50, { directRate: 100 })
  ]
  const svg = toSvg(rows, 'a <title> & more')

  it('is one svg element with escaped text', () => {
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true)
    expect(svg.trim().endsWith('</svg>')).toBe(true)
    expect(svg).toContain('a &lt;title&gt; &amp; more')
    expect(escapeXml('"<&>')).toBe('&quot;&lt;&amp;&gt;')
  })

  it('draws a service and a direct bar per row, not the ceiling rows themselves', () => {
    expect(svg.match(/<rect [^>]*fill="#2f6db5"><title>/g)).toHaveLength(2)
    expect(svg.match(/<rect [^>]*fill="#a9a9a9"><title>/g)).toHaveLength(2)
    expect(svg).toContain('no-op ceiling, c=16: 10,000/s')
  })

  it('draws faster rows longer', () => {
    const widths = [...svg.matchAll(/<rect [^>]*width="([\d.]+)" height="10" fill="#2f6db5">/g)].map((m) => Number(m[1]))
    expect(widths[0]).toBeGreaterThan(widths[1]!)
  })
})
