/**
 * A reference of aggregations, written from the rules of docs/queries.md (Aggregations) rather than from RediSearch:
 * the groups of the matching documents, their metrics, and their order.
 */
import type { Doc } from './reference.js'

export type Metric = { $count: Record<string, never> } | { $sum: string } | { $avg: string } | { $min: string } | { $max: string }
export interface AggregateBody {
  filter?: Record<string, unknown>
  groupBy?: string[]
  metrics?: Record<string, Metric>
  sort?: Array<{ metric?: string, pointer?: string, order?: 'asc' | 'desc' }>
  limit?: number
}
export interface Group { key: Record<string, string | boolean | null>, [metric: string]: unknown }
/** A group of the reference, with the scale its sums may be off by (the sum of the numbers' magnitudes). */
export interface ReferenceGroup { group: Group, scale: Record<string, number> }

function member (doc: Doc, pointer: string): unknown {
  return doc.value[pointer.slice(1)]
}

function keyValues (value: unknown, type: 'tag' | 'boolean'): Array<string | boolean | null> {
  if (type === 'boolean') return [typeof value === 'boolean' ? value : null]
  if (typeof value === 'string') return [value]
  if (Array.isArray(value)) {
    const members = [...new Set(value.filter((item): item is string => typeof item === 'string'))]
    return members.length > 0 ? members : [null]
  }
  return [null]
}

const bytes = (text: string) => Buffer.from(text, 'utf8')
function compareValues (a: string | boolean | null, b: string | boolean | null): number {
  if (a === b) return 0
  if (a === null) return 1
  if (b === null) return -1
  return Buffer.compare(bytes(String(a)), bytes(String(b)))
}

export function referenceAggregate (docs: readonly Doc[], body: AggregateBody, types: Record<string, 'tag' | 'boolean'>): { groups: ReferenceGroup[], truncated: boolean } {
  const groupBy = body.groupBy ?? []
  const byKey = new Map<string, { key: Array<string | boolean | null>, docs: Doc[] }>()
  for (const doc of docs) {
    let keys: Array<Array<string | boolean | null>> = [[]]
    for (const pointer of groupBy) {
      const values = keyValues(member(doc, pointer), types[pointer]!)
      keys = keys.flatMap((key) => values.map((value) => [...key, value]))
    }
    for (const key of keys) {
      const id = JSON.stringify(key)
      const entry = byKey.get(id) ?? { key, docs: [] }
      entry.docs.push(doc)
      byKey.set(id, entry)
    }
  }
  const groups = [...byKey.values()].map(({ key, docs: members }): ReferenceGroup & { keyList: Array<string | boolean | null> } => {
    const group: Group = { key: Object.fromEntries(groupBy.map((pointer, position) => [pointer, key[position]!])) }
    const scale: Record<string, number> = {}
    for (const [name, metric] of Object.entries(body.metrics ?? {})) {
      const [[operator, pointer]] = Object.entries(metric) as [[string, string]]
      if (operator === '$count') { group[name] = members.length; continue }
      const numbers = members.map((doc) => member(doc, pointer)).filter((value): value is number => typeof value === 'number')
      const sum = numbers.reduce((total, value) => total + value, 0)
      scale[name] = numbers.reduce((total, value) => total + Math.abs(value), 0)
      group[name] = operator === '$sum'
        ? sum
        : numbers.length === 0 ? null : operator === '$avg' ? sum / numbers.length : operator === '$min' ? Math.min(...numbers) : Math.max(...numbers)
    }
    return { group, scale, keyList: key }
  })
  groups.sort((a, b) => {
    for (const entry of body.sort ?? []) {
      const direction = entry.order === 'desc' ? -1 : 1
      const [x, y] = entry.metric !== undefined
        ? [a.group[entry.metric] as number | null, b.group[entry.metric] as number | null]
        : [a.group.key[entry.pointer!]!, b.group.key[entry.pointer!]!]
      if (x === y) continue
      if (x === null) return 1
      if (y === null) return -1
      return (typeof x === 'number' ? (x < (y as number) ? -1 : 1) : compareValues(x, y as string | boolean)) * direction
    }
    for (let position = 0; position < a.keyList.length; position++) {
      const order = compareValues(a.keyList[position]!, b.keyList[position]!)
      if (order !== 0) return order
    }
    return 0
  })
  const limit = body.limit ?? 100
  return { groups: groups.slice(0, limit).map(({ group, scale }) => ({ group, scale })), truncated: groups.length > limit }
}
