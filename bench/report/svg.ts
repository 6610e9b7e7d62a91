import type { RowResult } from '../lib/results.js'
import { CEILING_ROW } from '../lib/targets.js'

export function escapeXml (text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')
}

const LABEL_WIDTH = 250
const PLOT_WIDTH = 520
const TOP = 56
const GROUP = 28
const BAR = 10
const SERVICE_COLOUR = '#2f6db5'
const DIRECT_COLOUR = '#a9a9a9'

/**
 * Requests per second of every row, the service beside the same work sent straight to Redis, on a
 * logarithmic axis (the rows span three orders of magnitude), with the no-op ceiling as a dashed line.
 */
export function toSvg (rows: readonly RowResult[], title = 'jsondocs: requests per second'): string {
  const ceiling = rows.find((row) => row.id === CEILING_ROW)
  const shown = rows.filter((row) => row.family !== 'ceiling' && !row.rss)
  const rates = shown.flatMap((row) => [row.service.rate, row.direct?.rate ?? 0]).concat(ceiling?.service.rate ?? 0)
  const top = 10 ** Math.max(1, Math.ceil(Math.log10(Math.max(10, ...rates))))
  const bottom = 10
  const x = (rate: number) => rate <= bottom ? 0 : (Math.log10(rate / bottom) / Math.log10(top / bottom)) * PLOT_WIDTH
  const height = TOP + shown.length * GROUP + 40
  const width = LABEL_WIDTH + PLOT_WIDTH + 60
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="11">`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    `<text x="10" y="18" font-size="14" font-weight="bold">${escapeXml(title)}</text>`,
    `<rect x="10" y="28" width="10" height="10" fill="${SERVICE_COLOUR}"/><text x="24" y="37">through the service (HTTP)</text>`,
    `<rect x="190" y="28" width="10" height="10" fill="${DIRECT_COLOUR}"/><text x="204" y="37">same command straight to Redis (node-redis)</text>`
  ]
  for (let tick = bottom; tick <= top; tick *= 10) {
    const at = LABEL_WIDTH + x(tick)
    parts.push(`<line x1="${at}" y1="${TOP - 6}" x2="${at}" y2="${height - 34}" stroke="#e3e3e3"/>`)
    parts.push(`<text x="${at}" y="${height - 20}" text-anchor="middle">${tick.toLocaleString('en-US')}</text>`)
  }
  parts.push(`<text x="${LABEL_WIDTH + PLOT_WIDTH / 2}" y="${height - 6}" text-anchor="middle">requests per second (log scale)</text>`)
  shown.forEach((row, index) => {
    const y = TOP + index * GROUP
    parts.push(`<text x="${LABEL_WIDTH - 8}" y="${y + BAR + 4}" text-anchor="end">${escapeXml(row.id)}<title>${escapeXml(`${row.title}, ${row.settings}`)}</title></text>`)
    parts.push(`<rect x="${LABEL_WIDTH}" y="${y}" width="${x(row.service.rate).toFixed(1)}" height="${BAR}" fill="${SERVICE_COLOUR}"><title>${Math.round(row.service.rate)}/s</title></rect>`)
    if (row.direct) {
      parts.push(`<rect x="${LABEL_WIDTH}" y="${y + BAR + 1}" width="${x(row.direct.rate).toFixed(1)}" height="${BAR}" fill="${DIRECT_COLOUR}"><title>${Math.round(row.direct.rate)}/s</title></rect>`)
    }
  })
  if (ceiling) {
    const at = LABEL_WIDTH + x(ceiling.service.rate)
    parts.push(`<line x1="${at}" y1="${TOP - 6}" x2="${at}" y2="${height - 34}" stroke="#c0392b" stroke-dasharray="4 3"/>`)
    parts.push(`<text x="${at - 4}" y="${TOP - 8}" text-anchor="end" fill="#c0392b">no-op ceiling, c=${ceiling.connections}: ${Math.round(ceiling.service.rate).toLocaleString('en-US')}/s</text>`)
  }
  parts.push('</svg>')
  return parts.join('\n') + '\n'
}
