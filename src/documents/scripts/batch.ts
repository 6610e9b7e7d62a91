import { LuaScript } from '../../redis/lua-script.js'
import { list, number, optionalNumberText, protocol, record, text } from '../../redis/script-protocol.js'
import { documentLua } from './prelude.js'
import { eventLogArgs, useEventLog } from './guarded-write.js'

/**
 * An item of a batch: its preconditions, ttl, collection and schema guard (as in guardedWrite), its JSON
 * text, an upper bound of its size in RedisJSON and its depth.
 */
const batchItem = record({
  ifMatch: text, ifNoneMatch: text, ttl: optionalNumberText, collection: text, guard: text, value: text, size: number, depth: number
})

/** The status of an item of a batch, and its new version (or, when too large, the size it would have had). */
export type BatchItemReply =
  | { status: 'created' | 'ok' | 'precondition' | 'wrongtype', version?: string }
  | { status: 'toolarge', size: number }

export type BatchReply = { status: 'schemachanged' } | { status: 'done', items: BatchItemReply[] }

function batchReply (raw: unknown): BatchReply {
  const replies = raw as Array<[string, unknown]> | ['schemachanged']
  if (replies[0] === 'schemachanged') return { status: 'schemachanged' }
  return {
    status: 'done',
    items: (replies as Array<[BatchItemReply['status'], unknown]>).map(([status, detail]): BatchItemReply => {
      if (status === 'toolarge') return { status, size: Number(detail) }
      return detail === null || detail === undefined || detail === false ? { status } : { status, version: String(detail) }
    })
  }
}

/**
 * Writes many whole documents in one atomic step, each with its own preconditions and ttl: documents of
 * one hash slot, given with the slot's schema mirror, a scratch key, the slot's event log, the longest document
 * in bytes and the log's bounds (see recordEvent); each document with its version record.
 * An item that fails leaves its document untouched and the others still apply. When any schema guard
 * fails, nothing is written.
 */
export const batchPutScript = new LuaScript('batch-put', protocol({
  keys: ['mirror', 'scratch', 'log'],
  keyGroups: { name: 'documents', keys: ['doc', 'ver'] },
  args: { maxBytes: number, ...eventLogArgs, items: list(batchItem) },
  reply: batchReply
}), useEventLog('log') + `
for i, item in ipairs(items) do
  item.doc, item.ver = documents[i].doc, documents[i].ver
  if not schemaHolds(mirror, item.collection, item.guard) then return { 'schemachanged' } end
end

-- Sets an item's document, measured first on the scratch key when its bound passes the limit.
local function store(item)
  if item.size <= maxBytes then
    redis.call('JSON.SET', item.doc, '$', item.value)
    return item.size
  end
  redis.call('JSON.SET', scratch, '$', item.value)
  local size = #redis.call('JSON.GET', scratch, '$') - 2
  if size > maxBytes then
    redis.call('DEL', scratch)
    return nil, size
  end
  if redis.call('EXISTS', item.doc) == 1 then replaceWith(item.doc, scratch) else redis.call('RENAME', scratch, item.doc) end
  return size
end

local results = {}
for i, item in ipairs(items) do
  local k = kindOf(item.doc)
  if k == 'wrongtype' then
    results[i] = { 'wrongtype', false }
  elseif not preconditionHolds(item.ver, k ~= nil, item.ifMatch, item.ifNoneMatch) then
    results[i] = { 'precondition', false }
  else
    local size, tooLarge = store(item)
    if size then
      changed('replace', '""', item.value)
      local version = commit(item.doc, item.ver, item.ttl, item.doc, size, item.depth)
      results[i] = { k and 'ok' or 'created', version }
    else
      results[i] = { 'toolarge', tostring(tooLarge) }
    end
  end
end
return results
`, { shared: documentLua })
