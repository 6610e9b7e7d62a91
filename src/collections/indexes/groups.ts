/*
 * An aggregation's groups: each match's values counted into the groups it belongs to, then the groups'
 * metrics and their order. Pure: no fastify, no Redis.
 */
import { compareBytes } from './cursor.js'

/** A group's key: per groupBy field, a string (a tag), a boolean, or null (the document has none). */
export type GroupKey = ReadonlyArray<string | boolean | null>

/** A metric as the plan reads it: its name, its operator, and for a number metric which of the read numbers. */
export interface MetricSpec {
  name: string
  operator: '$count' | '$sum' | '$avg' | '$min' | '$max'
  number?: number
}

/** What a group gathers of one number field: a sum kept exactly enough (Neumaier), how many numbers, the least and greatest. */
interface Tally {
  sum: number
  compensation: number
  count: number
  min: number
  max: number
}

interface Group {
  key: GroupKey
  documents: number
  tallies: Tally[]
}

export type Groups = Map<string, Group>

/** The type of a field groups are made by. */
export type GroupFieldType = 'tag' | 'boolean'

/**
 * The values a group key takes from a match's field (its JSON text): a tag field's string, or each distinct
 * string of its array; a boolean field's boolean; null when the document holds none of these there.
 */
function keyValues (type: GroupFieldType, json: string | undefined): Array<string | boolean | null> {
  if (json === undefined) return [null]
  const value = JSON.parse(json) as unknown
  if (type === 'boolean') return [typeof value === 'boolean' ? value : null]
  if (typeof value === 'string') return [value]
  if (Array.isArray(value)) {
    const members = [...new Set(value.filter((member): member is string => typeof member === 'string'))]
    return members.length > 0 ? members : [null]
  }
  return [null]
}

/** Every combination of one value per field. */
function combinations (values: Array<Array<string | boolean | null>>): GroupKey[] {
  return values.reduce<GroupKey[]>((keys, choices) => keys.flatMap((key) => choices.map((choice) => [...key, choice])), [[]])
}

function add (tally: Tally, value: number): void {
  const sum = tally.sum + value
  tally.compensation += Math.abs(tally.sum) >= Math.abs(value) ? (tally.sum - sum) + value : (value - sum) + tally.sum
  tally.sum = sum
  tally.count++
  if (value < tally.min) tally.min = value
  if (value > tally.max) tally.max = value
}

/**
 * Counts a match into its groups: row holds the JSON text of its groupBy fields (of these types), then of
 * the number fields the metrics read. A document counts once in each group its fields give it. Answers
 * false, having counted it nowhere, when that would make more than maxGroups groups (one document's arrays
 * alone may name millions of combinations).
 */
export function countInto (groups: Groups, types: readonly GroupFieldType[], row: ReadonlyArray<string | undefined>, maxGroups: number): boolean {
  const groupCount = types.length
  const values = types.map((type, position) => keyValues(type, row[position]))
  const keys = values.reduce((product, choices) => product * choices.length, 1)
  if (keys > maxGroups) return false
  const ids = combinations(values).map((key) => ({ key, id: JSON.stringify(key) }))
  if (groups.size + ids.filter(({ id }) => !groups.has(id)).length > maxGroups) return false
  const numbers = row.slice(groupCount).map((json) => {
    if (json === undefined) return undefined
    const value = JSON.parse(json) as unknown
    return typeof value === 'number' ? value : undefined
  })
  for (const { key, id } of ids) {
    let group = groups.get(id)
    if (group === undefined) {
      group = { key, documents: 0, tallies: numbers.map(() => ({ sum: 0, compensation: 0, count: 0, min: Infinity, max: -Infinity })) }
      groups.set(id, group)
    }
    group.documents++
    numbers.forEach((value, position) => { if (value !== undefined) add(group.tallies[position]!, value) })
  }
  return true
}

function metricOf (group: Group, metric: MetricSpec): number | null {
  if (metric.operator === '$count') return group.documents
  const tally = group.tallies[metric.number!]!
  const sum = tally.sum + tally.compensation
  switch (metric.operator) {
    case '$sum': return sum
    case '$avg': return tally.count === 0 ? null : sum / tally.count
    case '$min': return tally.count === 0 ? null : tally.min
    default: return tally.count === 0 ? null : tally.max
  }
}

/** A key's values in order: strings byte by byte in UTF-8, false before true, null last. */
function compareValues (a: string | boolean | null, b: string | boolean | null): number {
  if (a === b) return 0
  if (a === null) return 1
  if (b === null) return -1
  if (typeof a === 'boolean' || typeof b === 'boolean') return compareBytes(String(a), String(b))
  return compareBytes(a, b)
}

function compareKeys (a: GroupKey, b: GroupKey): number {
  for (let position = 0; position < a.length; position++) {
    const order = compareValues(a[position]!, b[position]!)
    if (order !== 0) return order
  }
  return 0
}

export interface OrderedGroup {
  key: GroupKey
  values: Array<number | null>
}

/**
 * The groups with their metrics, in the requested order: each sort entry in turn (a metric, null last in
 * either direction, or a groupBy field's value), then the key.
 */
export function orderGroups (groups: Groups, metrics: readonly MetricSpec[],
  sort: ReadonlyArray<{ metric?: string, position?: number, order: 'asc' | 'desc' }>): OrderedGroup[] {
  const ordered = [...groups.values()].map((group) => ({ key: group.key, values: metrics.map((metric) => metricOf(group, metric)) }))
  const positions = sort.map((entry) => entry.metric === undefined ? undefined : metrics.findIndex((metric) => metric.name === entry.metric))
  return ordered.sort((a, b) => {
    for (const [at, entry] of sort.entries()) {
      const direction = entry.order === 'desc' ? -1 : 1
      const metric = positions[at]
      let order: number
      if (metric === undefined) {
        const [x, y] = [a.key[entry.position!]!, b.key[entry.position!]!]
        order = x === y ? 0 : x === null ? 2 : y === null ? -2 : compareValues(x, y) * direction
      } else {
        const [x, y] = [a.values[metric]!, b.values[metric]!]
        order = x === y ? 0 : x === null ? 2 : y === null ? -2 : (x < y ? -1 : 1) * direction
      }
      if (order !== 0) return order
    }
    return compareKeys(a.key, b.key)
  })
}
