import { describe, expect, it } from 'vitest'
import { parseWrkReport } from '../../bench/lib/wrk.js'

/** A report wrk 4.1.0 printed here, with --latency, against a route answering 404. */
const report = `Running 1s test @ http://127.0.0.1:3998/noop
  1 threads and 16 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency   451.23us    1.14ms  20.54ms   94.53%
    Req/Sec    68.69k    24.96k   87.44k    72.73%
  Latency Distribution
     50%  172.00us
     75%  302.00us
     90%  613.00us
     99%    5.66ms
  74930 requests in 1.10s, 13.01MB read
  Socket errors: connect 0, read 2, write 0, timeout 1
  Non-2xx or 3xx responses: 74930
Requests/sec:  68127.91
Transfer/sec:     11.82MB
`

describe('parseWrkReport', () => {
  it('reads rate, count, latencies in milliseconds, and every kind of error', () => {
    expect(parseWrkReport(report)).toEqual({
      requests: 74930,
      rate: 68127.91,
      latency: { mean: 0.45123, p50: 0.172, p75: 0.302, p90: 0.613, p99: 5.66, max: 20.54 },
      non2xx: 74930,
      socketErrors: 3
    })
  })

  it('counts no errors when wrk reports none', () => {
    const clean = report.replace(/^\s+(Socket errors|Non-2xx).*\n/gm, '')
    expect(parseWrkReport(clean)).toMatchObject({ non2xx: 0, socketErrors: 0 })
  })

  it('refuses a report without the figures it needs', () => {
    expect(() => parseWrkReport('unable to connect to 127.0.0.1:1 Connection refused')).toThrow(/rate|request count/)
  })
})
