import { LuaScript } from '../../redis/lua-script.js'
import { flag, number, protocol, text } from '../../redis/script-protocol.js'
import { documentLua } from './prelude.js'
import { documentReply, jsonText, pointer } from './protocol.js'

/*
 * Both scripts below take a location and the work limit in bytes: they stop with an error reply
 * starting TOO_COSTLY rather than walk a parent object's text in Lua past it.
 */
const located = <V>(value: (raw: unknown) => V) =>
  protocol({ keys: ['doc', 'ver'], args: { tokens: pointer, maxWork: number }, reply: documentReply(value) })

/** What describeScript tells of a value: its type, its length, its memory use and its member names. */
export type DescribedValue = [type: string, length: number | null, memory: number, keys: string[] | null]

/** GET of a location whose digit tokens did not all address array elements: resolve, then read. */
export const readScript = new LuaScript('read', located(jsonText), `
workLeft = maxWork
local k = kindOf(doc)
if k ~= 'json' then return { k or 'notfound' } end
local value = getAt(doc, locate(doc, tokens))
if not value then return { 'notfound' } end
local version, expires = versionRecord(ver)
return { 'ok', version, value, expires or false }
`, { shared: documentLua, readOnly: true })

/** What is at a location: type, size (string, array, object), member names and memory use. */
export const describeScript = new LuaScript('describe', located((raw) => raw as DescribedValue), `
workLeft = maxWork
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
`, { shared: documentLua, readOnly: true })

/**
 * A JSONPath query, within its bounds: the expression, its recursive descents and filters and whether it may
 * match several values (from the service's parse), the most values it may visit, and the reply limit in
 * bytes. The values are estimated before RedisJSON runs
 * the expression, for one that may match several: the document holds at most one per two bytes of its text
 * (`[0,0,...]`), visited once, again for each level of depth per recursive descent, and once more per
 * filter. A document written before records held sizes is measured once, and the record keeps what was found.
 * Reply: { 'ok', version, matches, expiresAt }, { 'toocostly', estimate }, { 'toolarge', bytes },
 * { 'badpath', RedisJSON's message }, or the document's kind when it holds none.
 */
export const queryScript = new LuaScript('query', protocol({
  keys: ['doc', 'ver'],
  args: { path: text, descents: number, filters: number, multiple: flag, maxValues: number, maxReply: number },
  reply: documentReply(jsonText)
}), `
local k = kindOf(doc)
if k ~= 'json' then return { k or 'notfound' } end

-- The nesting of a JSON text: strings (their escapes first) dropped, then brackets counted.
local function depthOf(text)
  local structure = string.gsub(string.gsub(string.gsub(text, '\\\\.', ''), '"[^"]*"', ''), '[^%[%]{}]', '')
  local depth, deepest = 0, 0
  for i = 1, #structure do
    local c = string.byte(structure, i)
    if c == 91 or c == 123 then
      depth = depth + 1
      if depth > deepest then deepest = depth end
    else
      depth = depth - 1
    end
  end
  return deepest
end

if multiple then
  local version, expires, size, depth, last = versionRecord(ver)
  if not size or not depth then
    local text = redis.call('JSON.GET', doc, '$')
    size, depth = #text - 2, depthOf(text) - 1
    if records[ver] then writeRecord(ver, version, expires, size, depth, last, true) end
  end
  local estimate = math.ceil(size / 2) * (1 + filters) * (depth + 1) ^ descents
  if estimate > maxValues then return { 'toocostly', string.format('%.0f', estimate) } end
end
local version, expires = versionRecord(ver)
local matches = redis.pcall('JSON.GET', doc, path)
if type(matches) == 'table' and matches.err then return { 'badpath', matches.err } end
if #matches > maxReply then return { 'toolarge', #matches } end
return { 'ok', version, matches, expires or false }
`, { shared: documentLua })
