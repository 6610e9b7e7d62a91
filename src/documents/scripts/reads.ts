import { LuaScript } from '../../redis/lua-script.js'
import { documentHeader, prelude } from './prelude.js'

/** GET of a location whose digit tokens did not all address array elements: resolve, then read. */
export const readScript = new LuaScript(prelude + documentHeader + `
local k = kindOf(doc)
if k ~= 'json' then return { k or 'notfound' } end
local value = getAt(doc, locate(doc, tokens))
if not value then return { 'notfound' } end
local version, expires = versionRecord(ver)
return { 'ok', version, value, expires or false }
`)

/** What is at a location: type, size (string, array, object), member names and memory use. */
export const describeScript = new LuaScript(prelude + documentHeader + `
local k = kindOf(doc)
if k ~= 'json' then return { k or 'notfound' } end
local loc = locate(doc, tokens)
if not present(doc, loc) then return { 'notfound' } end
local kind = typeAt(doc, loc.path)
local length, keys = false, false
if kind == 'string' then length = redis.call('JSON.STRLEN', doc, loc.path)[1] end
if kind == 'array' then length = redis.call('JSON.ARRLEN', doc, loc.path)[1] end
if kind == 'object' then
  length = redis.call('JSON.OBJLEN', doc, loc.path)[1]
  keys = redis.call('JSON.OBJKEYS', doc, loc.path)[1]
end
local memory = redis.call('JSON.DEBUG', 'MEMORY', doc, loc.path)[1]
local version, expires = versionRecord(ver)
return { 'ok', version, { kind, length, memory, keys }, expires or false }
`)
