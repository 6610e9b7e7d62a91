import { limitExceeded, UnsearchableValueError, withExtensions } from '../../errors.js'
import type { DocumentStore } from '../../documents/store/index.js'
import type { MasterNode } from '../../redis/redis.js'
import { controlAttributeOf, TAG_SEPARATOR, type IndexField } from './definition.js'
import { truncatedUnion } from './expansion.js'
import type { QueryPlan, Searcher } from './search.js'

/*
 * RediSearch indexes a document's tag value only up to its first U+0000, and splits it at U+001F (the
 * index's tag separator): such a document matches `$eq` on a part of its value, escapes `$ne` on it, and
 * sorts as its first part. Writes do not look for them (that would cost every write of an indexed
 * collection); the index does instead: each tag field has a companion attribute holding its strings that hold
 * a control character other than white space (see createArguments), a superset RediSearch's JSONPath can
 * say. Before a query or an aggregation is answered, the documents it could be answered wrongly for are
 * looked up there: those its filter could match (its `superset`) that hold such a string in a tag field the
 * filter compares or the query sorts on. Those really holding U+0000 or U+001F there make it 422, naming
 * them; any other control character is indexed whole, and the answer stands. An index made without the
 * companions (by an earlier release) is not screened, as that release did not, until its rebuild is ready.
 *
 * Most indexes hold no such string at all, and the screen's `ismissing()` walks every document's entry
 * (about 350 µs on 100,000 documents), so each master is first asked whether its companions hold any value:
 * a wildcard over them (about 50 µs), profiled, since it expands to at most MAXEXPANSIONS values and says
 * so only there. Only a master whose wildcard found a document, or reached the bound, is screened.
 */

/** Documents of one master a screen reads, at most: past it, the query is refused rather than read them all. */
export const MAX_CONTROL_MATCHES = 1000
/** Documents a refusal names, at most. */
const NAMED = 10
/** What RediSearch cannot index whole in a tag value. */
const UNSEARCHABLE = new RegExp(`[\u0000${TAG_SEPARATOR}]`)

type Screened = Pick<QueryPlan, 'index' | 'filter' | 'sort' | 'readable'>

/** The tag fields whose values decide a plan's answer: those its filter compares, and its sort's. */
function fieldsOf ({ filter, sort }: Screened): IndexField[] {
  const fields = new Set(filter.compared ?? [])
  if (sort?.field.type === 'tag') fields.add(sort.field)
  return [...fields]
}

function holdsUnsearchable (value: unknown): boolean {
  const values = Array.isArray(value) ? value : [value]
  return values.some((item) => typeof item === 'string' && UNSEARCHABLE.test(item))
}

/** The masters whose index may hold a control string in one of the fields: all but those a whole wildcard found none on. */
async function mastersHolding (searcher: Searcher, { index }: Screened, fields: IndexField[], masters: readonly MasterNode[]): Promise<MasterNode[]> {
  const query = fields.map((field) => `@${controlAttributeOf(field)}:{w'*'}`).join(' | ')
  const holds = await Promise.all(masters.map(async (master) => {
    const profile = await searcher.search(master, ['FT.PROFILE', index.nameOn(master), 'SEARCH', 'LIMITED', 'QUERY', query, 'NOCONTENT', 'LIMIT', '0', '1',
      ...searcher.tail({ query, params: [] })])
    return searcher.rows(profile).length > 0 || truncatedUnion(profile) !== undefined
  }))
  return masters.filter((_, at) => holds[at])
}

/** Refuses (422) a plan that a document holding U+0000 or U+001F in one of its tag fields could be answered wrongly for. */
export async function refuseUnsearchable (searcher: Searcher, documents: DocumentStore, plan: Screened, masters: readonly MasterNode[]): Promise<void> {
  const fields = fieldsOf(plan)
  if (fields.length === 0 || !plan.index.companions) return
  const held = `-(${fields.map((field) => `ismissing(@${controlAttributeOf(field)})`).join(' ')})`
  // RediSearch takes `*` alone only.
  const superset = plan.filter.superset ?? '*'
  const query = superset === '*' ? held : `(${superset}) ${held}`
  const holding = await mastersHolding(searcher, plan, fields, masters)
  const found = await Promise.all(holding.map(async (master) => {
    const reply = await searcher.search(master, ['FT.SEARCH', plan.index.nameOn(master), query, 'NOCONTENT', 'LIMIT', '0', String(MAX_CONTROL_MATCHES + 1),
      ...searcher.tail({ query, params: plan.filter.params })])
    return { rows: searcher.rows(reply), total: Number(reply.get('total_results') ?? 0) }
  }))
  const { readable } = plan
  const keys = found.flatMap(({ rows }) => rows.map((row) => row.key))
    .filter((key) => readable === undefined || readable.some((prefix) => (searcher.keyPrefix + key).startsWith(prefix)))
  if (keys.length === 0) return
  const unsearchable: Array<{ key: string, pointer: string }> = []
  for (const field of fields) {
    for (const item of await documents.readMany(keys, field.tokens)) {
      if (item.status === 200 && holdsUnsearchable(JSON.parse(item.json))) unsearchable.push({ key: item.key, pointer: field.pointer })
    }
  }
  if (unsearchable.length > 0) {
    const named = unsearchable.slice(0, NAMED)
    throw withExtensions(new UnsearchableValueError(`${unsearchable.length === 1 ? 'A document holds' : `${unsearchable.length} values hold`} U+0000 or U+001F in a tag ` +
      `field this request compares or sorts on (${named.map(({ key, pointer }) => `${JSON.stringify(key)} at ${pointer}`).join(', ')}${unsearchable.length > NAMED ? ', ...' : ''}), ` +
      'which RediSearch indexes only in part, so the answer could be wrong: change those values, or ask without that field'), { documents: named })
  }
  if (found.some(({ total }) => total > MAX_CONTROL_MATCHES)) {
    throw limitExceeded('MAX_CONTROL_MATCHES', MAX_CONTROL_MATCHES, `More than ${MAX_CONTROL_MATCHES} documents this request could match hold control characters ` +
      'in a tag field it compares or sorts on, too many to check that RediSearch indexed them whole; narrow its filter')
  }
}
