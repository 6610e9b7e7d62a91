import { list, record, text } from '../../redis/script-protocol.js'
import { guardedWrite } from './guarded-write.js'
import { jsonText, writtenPointer } from './protocol.js'

/*
 * Structural equality of two JSON texts as RedisJSON serialises them (so strings share one escaping):
 * objects ignore member order, numbers compare numerically, integers digit by digit.
 */
const jsonEquality = `
local function parseJson(s)
  local pos = 1
  local parseValue
  local function skip() pos = string.find(s, '[^ \\t\\r\\n]', pos) or (#s + 1) end
  local function parseString()
    local start = pos
    pos = pos + 1
    while true do
      local at = string.find(s, '["\\\\]', pos)
      if string.sub(s, at, at) == '\\\\' then pos = at + 2 else pos = at + 1; break end
    end
    return string.sub(s, start, pos - 1)
  end
  local function nextDelimiter() skip(); local d = string.sub(s, pos, pos); pos = pos + 1; return d end
  parseValue = function()
    skip()
    local c = string.sub(s, pos, pos)
    if c == '{' then
      local members, count = {}, 0
      pos = pos + 1; skip()
      if string.sub(s, pos, pos) == '}' then pos = pos + 1; return { kind = 'object', members = members, count = 0 } end
      repeat
        skip()
        local name = parseString()
        nextDelimiter()
        members[name] = parseValue()
        count = count + 1
      until nextDelimiter() == '}'
      return { kind = 'object', members = members, count = count }
    elseif c == '[' then
      local items = {}
      pos = pos + 1; skip()
      if string.sub(s, pos, pos) == ']' then pos = pos + 1; return { kind = 'array', items = items } end
      repeat items[#items + 1] = parseValue() until nextDelimiter() == ']'
      return { kind = 'array', items = items }
    elseif c == '"' then
      return { kind = 'string', text = parseString() }
    end
    local token = string.match(s, '^[%w%.%+%-]+', pos)
    pos = pos + #token
    if token == 'true' or token == 'false' or token == 'null' then return { kind = token } end
    return { kind = 'number', text = token }
  end
  return parseValue()
end

local function equal(a, b)
  if a.kind ~= b.kind then return false end
  if a.kind == 'string' then return a.text == b.text end
  if a.kind == 'number' then
    if not string.find(a.text, '[%.eE]') and not string.find(b.text, '[%.eE]') then return a.text == b.text end
    return tonumber(a.text) == tonumber(b.text)
  end
  if a.kind == 'array' then
    if #a.items ~= #b.items then return false end
    for i = 1, #a.items do
      if not equal(a.items[i], b.items[i]) then return false end
    end
    return true
  end
  if a.kind == 'object' then
    if a.count ~= b.count then return false end
    for name, value in pairs(a.members) do
      local other = b.members[name]
      if not other or not equal(value, other) then return false end
    end
  end
  return true
end
`

/**
 * One operation of a JSON Patch: its name, a reason it cannot apply ('' when none), its value ('' when none),
 * its path and its from pointers (both already joined to the base), and both again, JSON-encoded, for the
 * change feed.
 */
const patchOperation = record({
  name: text, invalid: text, value: text, path: writtenPointer, from: writtenPointer, pathPointer: text, fromPointer: text
})

/**
 * JSON Patch (RFC 6902), all operations or none, on the working copy (the scratch key holds test values).
 * The patch applies to a copy that replaces the document only when every operation succeeded. A failed
 * operation answers { 'failed', index, reason }.
 */
export const jsonPatchScript = guardedWrite('json-patch', { operations: list(patchOperation) }, jsonText, `
local k = kindOf(doc)
if k ~= 'json' then return { k or 'notfound' } end
local base = locate(doc, tokens)
if not present(doc, base) then return { 'notfound' } end
local count = #operations
if not preconditionHolds(ver, true, ifMatch, ifNoneMatch) then return { 'precondition' } end

-- An element added to or removed from an array moves those after it: the feed replaces the array whole.
local function arrayChanged(loc, pointer)
  local array = valueAt(work, loc.parent)
  spend(#array)
  changed('replace', parentPointer(pointer), array)
end

local function add(path, value, pointer)
  if #path == 0 then redis.call('JSON.SET', work, '$', value); changed('replace', pointer, value); return nil end
  local loc = locate(work, path)
  if loc.parentType == 'object' then setAt(work, loc, value); changed('add', pointer, value); return nil end
  if loc.named then return 'the parent of the path does not exist or is not an object' end
  if loc.parentType ~= 'array' then return 'the parent of the path does not exist or is not a container' end
  if loc.last.index == '-' then redis.call('JSON.ARRAPPEND', work, loc.parent, value); arrayChanged(loc, pointer); return nil end
  local length = redis.call('JSON.ARRLEN', work, loc.parent)[1]
  if not isIndex(loc.last.index) or tonumber(loc.last.index) > length then
    return 'the array index is out of range'
  end
  chargeMoves(length - tonumber(loc.last.index))
  redis.call('JSON.ARRINSERT', work, loc.parent, loc.last.index, value)
  arrayChanged(loc, pointer)
  return nil
end

-- A copy grows the working copy by what it copied. Once the document's bound passes the limit, the copy is
-- measured: over the limit, the patch stops there (copies can double a document at every operation).
local function copied(bytes)
  growth = growth + bytes
  if sizeBefore and sizeBefore + growth <= maxBytes then return nil end
  local size = #redis.call('JSON.GET', work, '$') - 2
  spend(size)
  if size > maxBytes then return { 'toolarge', size } end
  return nil
end

local function existing(path)
  local loc = locate(work, path)
  if not present(work, loc) then return nil end
  return loc
end

local function remove(path, pointer)
  if #path == 0 then return 'the patch target itself cannot be removed' end
  local loc = existing(path)
  if not loc then return 'no value at the path' end
  deleteAt(work, loc)
  if loc.last and isIndex(loc.last.index) and loc.parentType == 'array' then arrayChanged(loc, pointer) else changed('remove', pointer) end
  return nil
end

local function apply(op)
  if op.invalid ~= '' then return op.invalid end
  if op.name == 'add' then return add(op.path, op.value, op.pathPointer) end
  if op.name == 'remove' then return remove(op.path, op.pathPointer) end
  if op.name == 'replace' then
    local loc = existing(op.path)
    if not loc then return 'no value at the path' end
    setAt(work, loc, op.value)
    changed('replace', op.pathPointer, op.value)
    return nil
  end
  if op.name == 'test' then
    local loc = existing(op.path)
    if not loc then return 'no value at the path' end
    redis.call('JSON.SET', scratch, '$', op.value)
    local actual, expected = getAt(work, loc), redis.call('JSON.GET', scratch)
    if not spend(#actual + #expected) then return nil end
    -- Both are RedisJSON's serialisations: the same text is the same value, whatever its size.
    if actual == expected then return nil end
    if not spend((#actual + #expected) * LUA_PARSE) then return nil end
    if not equal(parseJson(actual), parseJson(expected)) then
      return 'the value at the path is not equal to the test value'
    end
    return nil
  end
  local from = existing(op.from)
  if not from then return 'no value at the from location' end
  local value = getAt(work, from)
  if not spend(2 * #value) then return nil end
  if op.name == 'move' then
    if #op.from == 0 then return 'the patch target itself cannot be moved' end
    deleteAt(work, from)
    if from.last and isIndex(from.last.index) and from.parentType == 'array' then
      arrayChanged(from, op.fromPointer)
    else
      changed('remove', op.fromPointer)
    end
  end
  local reason = add(op.path, value, op.pathPointer)
  if reason then return reason end
  -- What moved or was copied nests as deep below its new place as it did below its old one.
  if depthBefore and depthAfter then
    depthAfter = math.max(depthAfter, #op.path + math.max(depthBefore, depthAfter) - #op.from)
  end
  if op.name ~= 'copy' then return nil end
  return copied(#value + 2 + #(op.path[#op.path] or { index = '' }).index)
end

redis.call('COPY', doc, work, 'REPLACE')
for i = 1, count do
  local reason = apply(operations[i])
  if workLeft < 0 then reason = { 'toocostly' } end
  if reason then
    redis.call('DEL', work, scratch)
    if type(reason) == 'table' then return reason end
    return { 'failed', i - 1, reason }
  end
end
redis.call('DEL', scratch)
replaceWith(doc, work)
return done('ok', locate(doc, tokens))
`, jsonEquality)
