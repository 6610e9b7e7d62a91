import { LuaScript } from '../../redis/lua-script.js'
import { prelude } from './prelude.js'

/**
 * Writes many whole documents in one atomic step, each with its own preconditions and ttl. KEYS: each
 * item's document, version record and collection schema. ARGV: the item count, then per item
 * If-Match, If-None-Match, ttl, schema guard (as in guardedWrite) and the JSON text. Reply: per item
 * { status, version } with status created | ok | precondition | wrongtype; an item that fails leaves
 * its document untouched and the others still apply. When any schema guard fails, nothing is
 * written and the reply is { 'schemachanged' }.
 */
export const batchPutScript = new LuaScript(prelude + `
local count, items = tonumber(arg()), {}
for i = 1, count do
  local item = { doc = KEYS[3 * i - 2], ver = KEYS[3 * i - 1], schema = KEYS[3 * i] }
  item.ifMatch, item.ifNoneMatch, item.ttl, item.guard, item.value = arg(), arg(), arg(), arg(), arg()
  if item.guard ~= '-' and (redis.call('HGET', item.schema, 'revision') or '') ~= item.guard then
    return { 'schemachanged' }
  end
  items[i] = item
end
local results = {}
for i, item in ipairs(items) do
  local k = kindOf(item.doc)
  if k == 'wrongtype' then
    results[i] = { 'wrongtype', false }
  elseif not preconditionHolds(item.ver, k ~= nil, item.ifMatch, item.ifNoneMatch) then
    results[i] = { 'precondition', false }
  else
    redis.call('JSON.SET', item.doc, '$', item.value)
    local version = bump(item.ver)
    applyTtl(item.doc, item.ver, item.ttl)
    results[i] = { k and 'ok' or 'created', version }
  end
end
return results
`)
