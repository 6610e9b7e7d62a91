import { jsonResponse, problemResponses } from '../../openapi/components.js'
import { collectionParams } from '../schema-route-schemas.js'
import { DEFAULT_GROUPS, MAX_GROUP_BY, MAX_GROUPS_ANSWERED, MAX_METRICS } from './aggregate.js'
import { MAX_QUERY_URL_BYTES, shortConditions } from './route-schemas.js'

/** Route schemas of `/collections/{collection}/aggregate`: each validates and becomes an OpenAPI operation. */

const noQuery = { type: 'object', properties: {}, additionalProperties: false } as const
const pointer = { type: 'string', maxLength: 1024, pattern: '^/', description: 'JSON Pointer (RFC 6901) of a field of the index' } as const
/** Metric names: never the answer's own members (`key`), and safe in any client's identifiers. */
const METRIC_NAME = '^(?!key$)[A-Za-z_][A-Za-z0-9_]{0,63}$'

const limit = { type: 'integer', format: 'int32', minimum: 1, maximum: MAX_GROUPS_ANSWERED, default: DEFAULT_GROUPS, description: 'Most groups answered' } as const

const aggregateMetric = {
  $id: 'AggregateMetric',
  type: 'object',
  description: 'One operator: `{"$count": {}}` (documents in the group), or `{"$sum": pointer}`, `{"$avg": pointer}`, `{"$min": pointer}`, ' +
    '`{"$max": pointer}` of a number field of the index (documents without a number there do not count; `$avg`, `$min` and `$max` of none ' +
    'are null, `$sum` of none is 0)',
  properties: {
    $count: { type: 'object', properties: {}, additionalProperties: false },
    $sum: pointer,
    $avg: pointer,
    $min: pointer,
    $max: pointer
  },
  minProperties: 1,
  maxProperties: 1,
  additionalProperties: false
} as const

const aggregateSort = {
  $id: 'AggregateSort',
  type: 'object',
  description: 'Either a metric of the request or a pointer of `groupBy` (one of the two), and the direction; null values come last either way',
  properties: {
    metric: { type: 'string', pattern: METRIC_NAME },
    pointer,
    order: { type: 'string', enum: ['asc', 'desc'] }
  },
  minProperties: 1,
  additionalProperties: false
} as const

const aggregateRequest = {
  $id: 'AggregateRequest',
  type: 'object',
  description: 'Groups of the documents a filter matches, and what they count and add up to: see Aggregations in docs/queries.md',
  properties: {
    filter: {
      type: 'object',
      additionalProperties: true,
      description: 'The query filter: the same grammar and refusals as `POST /collections/{collection}/query`'
    },
    groupBy: {
      type: 'array',
      maxItems: MAX_GROUP_BY,
      uniqueItems: true,
      items: pointer,
      description: 'Tag or boolean fields of the index the groups are made by (none: one group of every match). A document whose tag ' +
        'holds an array counts once in the group of each distinct member; one without a value is in the group whose key holds null'
    },
    metrics: {
      type: 'object',
      maxProperties: MAX_METRICS,
      propertyNames: { pattern: METRIC_NAME },
      additionalProperties: { $ref: 'AggregateMetric#' },
      description: 'Each group\'s values, by the names given here'
    },
    sort: { type: 'array', maxItems: MAX_GROUP_BY + MAX_METRICS, items: { $ref: 'AggregateSort#' }, description: 'The groups\' order; ties, and the order without a sort, go by key' },
    limit
  },
  additionalProperties: false
} as const

const aggregateGroup = {
  $id: 'AggregateGroup',
  type: 'object',
  description: 'A group: its key (per groupBy pointer, the value, or null) and its metrics by name',
  properties: {
    key: { type: 'object', additionalProperties: { description: 'A string (a tag), a boolean, or null (no value)' } }
  },
  required: ['key'],
  additionalProperties: { description: 'A metric by its name: a number (an IEEE double), or null' }
} as const

const aggregateAnswer = {
  $id: 'AggregateAnswer',
  type: 'object',
  description: 'The groups, in order, and whether more groups exist past the limit',
  properties: {
    groups: { type: 'array', items: { $ref: 'AggregateGroup#' } },
    truncated: { type: 'boolean' }
  },
  required: ['groups', 'truncated'],
  additionalProperties: false
} as const

export const aggregateSchemaComponents: ReadonlyArray<{ $id: string }> = [aggregateMetric, aggregateSort, aggregateRequest]
export const aggregateAnswerSchemas: ReadonlyArray<{ $id: string }> = [aggregateGroup, aggregateAnswer]

const example = { groups: [{ key: { '/status': 'paid' }, n: 12, total: 340.5, mean: 28.375, lo: 1, hi: 99 }], truncated: false }

/** A pointer in a comma-separated list: `\\,` a comma in it, `\\\\` a backslash. */
const LISTED_POINTER = '/(?:[^,\\\\]|\\\\[,\\\\])*'
const LISTED_METRIC = `(?!key:)[A-Za-z_][A-Za-z0-9_]{0,63}:(?:count|(?:sum|avg|min|max):${LISTED_POINTER})`
const LISTED_SORT = `-?(?:[A-Za-z_][A-Za-z0-9_]{0,63}|${LISTED_POINTER})`
const list = (item: string, most: number) => `^${item}(?:,${item}){0,${most - 1}}$`

/** The GET form's query string: named parameters, and conditions named by pointers as a query's GET form takes them. */
const shortAggregateString = {
  type: 'object',
  properties: {
    groupBy: {
      type: 'string',
      maxLength: MAX_QUERY_URL_BYTES,
      pattern: list(LISTED_POINTER, MAX_GROUP_BY),
      description: `Up to ${MAX_GROUP_BY} tag or boolean fields' pointers, separated by commas (\`\\,\` is a comma in a pointer, \`\\\\\` a backslash)`
    },
    metrics: {
      type: 'string',
      maxLength: MAX_QUERY_URL_BYTES,
      pattern: list(LISTED_METRIC, MAX_METRICS),
      description: `Up to ${MAX_METRICS} metrics, separated by commas: \`name:count\`, or \`name:sum:/pointer\` (\`avg\`, \`min\`, \`max\` alike): ` +
        '`metrics=n:count,total:sum:/total`'
    },
    sort: {
      type: 'string',
      maxLength: MAX_QUERY_URL_BYTES,
      pattern: list(LISTED_SORT, MAX_GROUP_BY + MAX_METRICS),
      description: 'Metric names and groupBy pointers, separated by commas, each with `-` before it for a descending order: `sort=-n,/status`'
    },
    limit
  },
  patternProperties: { '^/': shortConditions }
} as const

/** GET /collections/{collection}/aggregate: the short form. */
export function shortAggregateRouteSchema (separator: string) {
  return {
    operationId: 'getCollectionAggregate',
    tags: ['queries'],
    summary: 'Count, add up and group the documents of a collection, in a URL',
    description: 'The short form of `POST /collections/{collection}/aggregate` for filters whose conditions all hold: ' +
      '`?/total=gte:1&groupBy=/status&metrics=n:count,total:sum:/total&sort=-n&limit=50`, answered as that POST would be. ' +
      `\`$or\` and \`$not\` take the POST form; so does a URL longer than ${MAX_QUERY_URL_BYTES} bytes (414).`,
    params: collectionParams(separator),
    querystring: shortAggregateString,
    response: {
      200: jsonResponse('The groups', { $ref: 'AggregateAnswer#' }, { examples: { groups: example } }),
      ...problemResponses(400, 404, 409, 414, 422, 501)
    }
  }
}

export function aggregateRouteSchema (separator: string) {
  return {
    operationId: 'aggregateCollection',
    tags: ['queries'],
    summary: 'Count, add up and group the documents of a collection',
    description: 'Groups the documents matching the filter by up to two tag or boolean fields and answers each group\'s count, sums, ' +
      'means, minima and maxima of number fields, exactly (IEEE doubles). Only documents the credentials may read count.',
    params: collectionParams(separator),
    querystring: noQuery,
    body: { $ref: 'AggregateRequest#' },
    response: {
      200: jsonResponse('The groups', { $ref: 'AggregateAnswer#' }, { examples: { groups: example } }),
      ...problemResponses(400, 404, 409, 422, 501)
    }
  }
}
