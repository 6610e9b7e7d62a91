import { LuaScript } from '../../redis/lua-script.js'
import { documentLua } from './prelude.js'

/**
 * Writes many whole documents in one atomic step, each with its own preconditions and ttl: documents of
 * one hash slot. KEYS: each item's document and version record, then the slot's schema mirror and a scratch
 * key. ARGV: the longest document in bytes, the item count, then per item If-Match, If-None-Match, ttl, its
 * collection and schema guard (as in guardedWrite),
 * the JSON text, an upper bound of its size in RedisJSON and its depth. Reply: per item { status, version }
 * with status created | ok | precondition | wrongtype | toolarge (then the size instead of a version); an
 * item that fails leaves its document untouched and the others still apply. When any schema guard fails,
 * nothing is written and the reply is { 'schemachanged' }.
 */
export const batchPutScript = new LuaScript('batch-put', `
local maxBytes, count, items = tonumber(arg()), tonumber(arg()), {}
local mirror, scratch = KEYS[2 * count + 1], KEYS[2 * count + 2]
for i = 1, count do
  local item = { doc = KEYS[2 * i - 1], ver = KEYS[2 * i] }
  item.ifMatch, item.ifNoneMatch, item.ttl, item.collection, item.guard = arg(), arg(), arg(), arg(), arg()
  item.value, item.size, item.depth = arg(), tonumber(arg()), tonumber(arg())
  items[i] = item
end
for _, item in ipairs(items) do
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
      local version = bump(item.ver, size, item.depth)
      applyTtl(item.doc, item.ver, item.ttl)
      results[i] = { k and 'ok' or 'created', version }
    else
      results[i] = { 'toolarge', tostring(tooLarge) }
    end
  end
end
return results
`, { shared: documentLua })
