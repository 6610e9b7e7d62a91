import { LuaScript } from '../../redis/lua-script.js'
import { prelude } from './prelude.js'

/**
 * Writes many whole documents in one atomic step, each with its own preconditions and ttl. KEYS: each
 * item's document and version record. ARGV: the item count, then per item If-Match, If-None-Match,
 * ttl and the JSON text. Reply: per item { status, version } with status created | ok | precondition
 * | wrongtype; an item that fails leaves its document untouched and the others still apply.
 */
export const batchPutScript = new LuaScript(prelude + `
local count, results = tonumber(arg()), {}
for i = 1, count do
  local doc, ver = KEYS[2 * i - 1], KEYS[2 * i]
  local ifMatch, ifNoneMatch, ttl, value = arg(), arg(), arg(), arg()
  local k = kindOf(doc)
  if k == 'wrongtype' then
    results[i] = { 'wrongtype', false }
  elseif not preconditionHolds(ver, k ~= nil, ifMatch, ifNoneMatch) then
    results[i] = { 'precondition', false }
  else
    redis.call('JSON.SET', doc, '$', value)
    local version = bump(ver)
    applyTtl(doc, ver, ttl)
    results[i] = { k and 'ok' or 'created', version }
  end
end
return results
`)
