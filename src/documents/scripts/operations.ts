import { list, record, text } from '../../redis/script-protocol.js'
import { guardedWrite } from './guarded-write.js'
import { writtenPointer } from './protocol.js'

/**
 * One operation: its name, its pointer (joined to the base), three arguments ('' when unused), JSON values, and
 * its pointer again, JSON-encoded, for the change feed.
 */
const operation = record({ name: text, path: writtenPointer, a: text, b: text, c: text, values: list(text), pointer: text })

/**
 * Operations at locations, without a read-modify-write round trip. One operation applies to the document in
 * place; a list applies to a copy that replaces the document only when every operation succeeded.
 * Reply: { 'ok', version, results (JSON texts), expiresAt } or { 'failed', index, reason, detail }.
 */
export const operationsScript = guardedWrite('operations', { operations: list(operation) },
  (raw) => (raw as unknown[]).map(String), `
local k = kindOf(doc)
if k ~= 'json' then return { k or 'notfound' } end
local count = #operations
if not preconditionHolds(ver, true, ifMatch, ifNoneMatch) then return { 'precondition' } end

-- Comparisons rather than a table of tables: a script builds its tables anew on every call.
local function accepts(name, found)
  if name == 'append' then return found == 'string' end
  if name == 'toggle' then return found == 'boolean' end
  if name == 'clear' then return found == 'object' or found == 'array' or found == 'integer' or found == 'number' end
  return found == 'array' and (name == 'push' or name == 'insert' or name == 'pop' or name == 'trim' or name == 'indexOf')
end

local function first(reply)
  if type(reply) == 'table' and reply.err then return nil, reply.err end
  return reply[1]
end

local function apply(key, op)
  local loc = locate(key, op.path)
  local path = loc.path
  if not path then return nil, 'notfound', '' end
  if op.name == 'incr' or op.name == 'mult' then
    -- The value's text tells a number (RedisJSON quotes strings): one read rather than a type check and a read.
    local before = getAt(key, loc)
    if not before then return nil, 'notfound', '' end
    if not tonumber(before) then return nil, 'type', typeAt(key, path) end
    local command = op.name == 'incr' and 'JSON.NUMINCRBY' or 'JSON.NUMMULTBY'
    local reply = redis.pcall(command, key, path, op.a)
    local expected = op.name == 'incr' and tonumber(before) + tonumber(op.a) or tonumber(before) * tonumber(op.a)
    local after = type(reply) == 'string' and unwrap(reply)
    local got = after and tonumber(after)
    -- RedisJSON wraps 64-bit integers around on overflow, and turns integers it cannot hold (a \`by\` or a
    -- value beyond the signed 64-bit range) into rounded doubles: undo and refuse both.
    local integers = string.find(before, '^-?%d+$') and string.find(op.a, '^-?%d+$')
    if not got or (integers and not string.find(after, '^-?%d+$'))
      or math.abs(got - expected) > 1e-9 * math.max(1, math.abs(expected)) then
      if after then redis.call('JSON.SET', key, path, before) end
      return nil, 'range', 'the result is beyond the range of a 64-bit integer or a double'
    end
    return after
  end
  local found = typeAt(key, path)
  if not found then return nil, 'notfound', '' end
  if not accepts(op.name, found) then return nil, 'type', found end
  if op.name == 'append' then return tostring(redis.call('JSON.STRAPPEND', key, path, op.a)[1]) end
  if op.name == 'toggle' then return redis.call('JSON.TOGGLE', key, path)[1] == 1 and 'true' or 'false' end
  if op.name == 'clear' then redis.call('JSON.CLEAR', key, path); return valueAt(key, path) end
  if op.name == 'push' then return tostring(redis.call('JSON.ARRAPPEND', key, path, unpack(op.values))[1]) end
  if op.name == 'trim' then return tostring(redis.call('JSON.ARRTRIM', key, path, op.a, op.b)[1]) end
  if op.name == 'insert' then
    -- RedisJSON inserts the values one at a time, each moving every element after it.
    local size, at = redis.call('JSON.ARRLEN', key, path)[1], tonumber(op.a)
    if at < 0 then at = size + at end
    chargeMoves(#op.values * (size - at))
    local length, failure = first(redis.pcall('JSON.ARRINSERT', key, path, op.a, unpack(op.values)))
    if not length then return nil, 'range', 'the index is out of range' end
    return tostring(length)
  end
  if op.name == 'pop' then
    local size = redis.call('JSON.ARRLEN', key, path)[1]
    if size == 0 then return nil, 'range', 'the array is empty' end
    local at = op.a == '' and size - 1 or tonumber(op.a)
    if at < 0 then at = size + at end
    chargeMoves(size - 1 - at)
    local popped = op.a == '' and redis.pcall('JSON.ARRPOP', key, path) or redis.pcall('JSON.ARRPOP', key, path, op.a)
    local element = first(popped)
    if not element then return nil, 'range', 'the index is out of range' end
    return element
  end
  if op.name == 'indexOf' then
    local reply = op.b == '' and redis.call('JSON.ARRINDEX', key, path, op.a)
      or (op.c == '' and redis.call('JSON.ARRINDEX', key, path, op.a, op.b)
      or redis.call('JSON.ARRINDEX', key, path, op.a, op.b, op.c))
    return tostring(reply[1])
  end
  return nil, 'unknown', op.name
end

local target = doc
if count > 1 then
  target = work
  redis.call('COPY', doc, work, 'REPLACE')
end
local results = {}
for i = 1, count do
  local op = operations[i]
  local result, reason, detail = apply(target, op)
  if not result then
    if target == work then redis.call('DEL', work) end
    return { 'failed', i - 1, reason, detail }
  end
  results[i] = result
  if op.name ~= 'indexOf' then
    local now = (op.name == 'incr' or op.name == 'mult' or op.name == 'toggle' or op.name == 'clear') and result
      or valueAt(target, locate(target, op.path).path)
    spend(#now)
    changed('replace', op.pointer, now)
  end
end
if target == work then replaceWith(doc, work) end
return done('ok', nil, results)
`)
