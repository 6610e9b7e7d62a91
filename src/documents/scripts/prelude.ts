import type { SharedLua } from '../../redis/lua-script.js'
import { ARGUMENT_CURSOR } from '../../redis/script-protocol.js'

/*
 * Lua shared by every document script. Conventions:
 * - A pointer's last token may name a member that RedisJSON paths cannot express (it starts with a
 *   space or a line feed) or, in a write, one whose step needs escapes, which RedisJSON's writes miss:
 *   its member step is then '' and its index slot holds the name as a JSON string. Such a member is
 *   read and written through the text of its parent object.
 * - A document is two keys: the JSON document and its version record, "version" or
 *   "version:expiresAtMs" when it has a time to live.
 * - A pointer arrives as a count n, then n pairs (member step, index): the member step is the quoted
 *   RedisJSON step (memberStep in pointer.ts); index is the token when it is a canonical array index,
 *   '-' for "-", and '' otherwise.
 * - Preconditions arrive as strings: '' when absent, '*', or versions joined by ','.
 */
/** How much slower than RedisJSON a Lua loop walks JSON text, and Lua parses it into tables (measured). */
const LUA_WALK = 16
const LUA_PARSE = 64

/** How an error reply of a script that stopped at the work limit starts. */
export const TOO_COSTLY = 'TOOCOSTLY'

/** Suffix of the stream beside an event log that keeps the changes too long for its entries (see keepChanges). */
export const KEPT_CHANGES_SUFFIX = '\u001fchanges'
/** The suffix as a Lua string literal. */
export const KEPT_CHANGES_LUA = `'${KEPT_CHANGES_SUFFIX.replace('\u001f', '\\31')}'`

/** The kept changes of a log take at most this many times EVENTS_MAX_ENTRY_BYTES, and always the latest write's. */
export const KEPT_CHANGES_SHARE = 1024

export const prelude = ARGUMENT_CURSOR + `
local function tokensArg()
  local n, tokens = arg() + 0, {}
  for i = 1, n do tokens[i] = { member = arg(), index = arg() } end
  return tokens
end

local function kindOf(key)
  local k = redis.call('TYPE', key).ok
  if k == 'none' then return nil end
  if k ~= 'ReJSON-RL' then return 'wrongtype' end
  return 'json'
end

-- Bytes of JSON text a script may still make Redis handle beyond the write itself (the write guard and the
-- read scripts set the budget to MAX_WORK_BYTES). Text a Lua loop walks counts LUA_WALK times, and text
-- parsed into Lua tables LUA_PARSE times: both are that much slower than RedisJSON's own code.
local LUA_WALK, LUA_PARSE = ${LUA_WALK}, ${LUA_PARSE}
local workLeft = 0
local function spend(bytes)
  workLeft = workLeft - bytes
  return workLeft >= 0
end

-- Raised before work that would pass the budget; a write's script catches it and leaves Redis as it was.
local TOO_COSTLY = { err = '${TOO_COSTLY} the request would make Redis walk more JSON text than MAX_WORK_BYTES' }
local function charge(bytes)
  if not spend(bytes) then error(TOO_COSTLY) end
end

-- Inserting or removing array elements moves those after them, about 32 in the time RedisJSON writes out
-- one byte of JSON.
local function chargeMoves(moves)
  if moves > 0 then charge(math.ceil(moves / 32)) end
end

-- RedisJSON parses a path anew for every command: a long one costs like walking that much text in Lua.
local function typeAt(key, path)
  charge(#path * LUA_WALK)
  return redis.call('JSON.TYPE', key, path)[1]
end

local function isIndex(index) return index ~= '' and index ~= '-' end

-- Digits address an element of an array and a member of anything else.
local function resolve(key, tokens, upto)
  local path, found = '$', true
  for i = 1, upto do
    local token = tokens[i]
    -- Below a missing value nothing is an array: no need to ask.
    local kind = found and isIndex(token.index) and typeAt(key, path)
    if kind == nil then found = false end
    if kind == 'array' then
      path = path .. '[' .. token.index .. ']'
    else
      path = path .. token.member
    end
  end
  return path
end

-- A location's parentType, looked up when first asked for.
local lazyParentType = { __index = function(loc, name)
  if name ~= 'parentType' then return nil end
  local parentType = typeAt(loc.key, loc.parent) or false
  rawset(loc, 'parentType', parentType)
  return parentType
end }

-- Where tokens lead: path (nil when an array is addressed by anything but an index, or for a member
-- no path can express, whose JSON-encoded name is then in 'named'), its parent and the parent's type
-- (nil or false when missing), and the last token.
local function locate(key, tokens)
  local n = #tokens
  if n == 0 then return { path = '$' } end
  local parent = resolve(key, tokens, n - 1)
  local last = tokens[n]
  if last.member ~= '' and not isIndex(last.index) then
    -- A member step matches members of objects only, so the path needs no parent type: the common
    -- write (a member that exists) never looks it up.
    return setmetatable({ key = key, parent = parent, last = last, path = parent .. last.member }, lazyParentType)
  end
  local parentType = typeAt(key, parent)
  local loc = { parent = parent, parentType = parentType, last = last }
  if last.member == '' then
    loc.named = last.index
  elseif parentType == 'array' then
    if isIndex(last.index) then loc.path = parent .. '[' .. last.index .. ']' end
  else
    loc.path = parent .. last.member
  end
  return loc
end

local function unwrap(matches) return string.sub(matches, 2, -2) end

local function valueAt(key, path) return unwrap(redis.call('JSON.GET', key, path)) end

-- The position after the JSON value starting at pos, in RedisJSON's compact serialisation.
local function skipValue(s, pos)
  local c = string.sub(s, pos, pos)
  if c == '"' then
    while true do
      local at = string.find(s, '["\\\\]', pos + 1)
      if string.sub(s, at, at) == '"' then return at + 1 end
      pos = at + 1
    end
  end
  if c == '{' or c == '[' then
    local depth = 0
    while true do
      local at = string.find(s, '[][{}"]', pos)
      local d = string.sub(s, at, at)
      if d == '"' then
        pos = skipValue(s, at)
      else
        if d == '{' or d == '[' then depth = depth + 1 else depth = depth - 1 end
        pos = at + 1
        if depth == 0 then return pos end
      end
    end
  end
  local _, last = string.find(s, '^[^,}%]]*', pos)
  return last + 1
end

-- The members of an object's text: name as written, and where the member and its value start and end.
local function membersOf(s)
  local list, pos = {}, 2
  if string.sub(s, 2, 2) == '}' then return list end
  while true do
    local nameEnd = skipValue(s, pos)
    local valueEnd = skipValue(s, nameEnd + 1)
    list[#list + 1] = { name = string.sub(s, pos, nameEnd - 1), from = pos, value = nameEnd + 1, to = valueEnd }
    if string.sub(s, valueEnd, valueEnd) == '}' then return list end
    pos = valueEnd + 1
  end
end

local function namedMember(key, loc)
  if loc.parentType ~= 'object' then return nil end
  local text = valueAt(key, loc.parent)
  charge(#text * LUA_WALK)
  local list = membersOf(text)
  for i, member in ipairs(list) do
    if member.name == loc.named then return text, list, i end
  end
  return text, list, nil
end

-- The text of the value at a location, or nil when there is none (a '$' path matching nothing
-- answers '[]', never a value).
local function getAt(key, loc)
  if loc.named then
    local text, list, i = namedMember(key, loc)
    if not i then return nil end
    return string.sub(text, list[i].value, list[i].to - 1)
  end
  if loc.path == nil then return nil end
  local matches = redis.call('JSON.GET', key, loc.path)
  if not matches or matches == '[]' then return nil end
  return unwrap(matches)
end

local function present(key, loc)
  if loc.named then
    local _, _, i = namedMember(key, loc)
    return i ~= nil
  end
  return loc.path ~= nil and typeAt(key, loc.path) ~= nil
end

-- Sets the value at a location whose parent exists (an object member is added when missing).
local function setAt(key, loc, value)
  if not loc.named then return redis.call('JSON.SET', key, loc.path, value) end
  local text, list, i = namedMember(key, loc)
  if i then
    text = string.sub(text, 1, list[i].value - 1) .. value .. string.sub(text, list[i].to)
  else
    text = string.sub(text, 1, -2) .. (#list > 0 and ',' or '') .. loc.named .. ':' .. value .. '}'
  end
  return redis.call('JSON.SET', key, loc.parent, text)
end

local function deleteAt(key, loc)
  if not loc.named then
    if isIndex(loc.last and loc.last.index or '') and loc.parentType == 'array' then
      chargeMoves(redis.call('JSON.ARRLEN', key, loc.parent)[1] - tonumber(loc.last.index))
    end
    return redis.call('JSON.DEL', key, loc.path)
  end
  local text, list, i = namedMember(key, loc)
  if #list == 1 then
    text = '{}'
  elseif i == #list then
    text = string.sub(text, 1, list[i].from - 2) .. '}'
  else
    text = string.sub(text, 1, list[i].from - 1) .. string.sub(text, list[i + 1].from)
  end
  return redis.call('JSON.SET', key, loc.parent, text)
end

-- Version records as read or last written by this script, so each is read from Redis once.
local records = {}

-- A version record is "version", "version:expiresAt", "version:expiresAt:size:depth" or
-- "version:expiresAt:size:depth:last" (any but the version may be empty): size bounds the document's text in
-- bytes and depth its nesting, as the service last wrote it, and last is the id of the document's latest entry
-- in its slot's event log. A deleted document leaves "0::::last" for the retention, so that the entries of a
-- document deleted and written again still chain. Answers version, expiresAt, size, depth, last; all but the
-- version nil when the record does not say.
-- Kept parsed: { version, expiresAt or nil, size or nil, depth or nil, last or nil }, or false for none.
local function versionRecord(verKey)
  local record = records[verKey]
  if record == nil then
    local text = redis.call('GET', verKey)
    local version, expires, size, depth, last = string.match(text or '', '^(%d+):?(%d*):?(%d*):?(%d*):?([%d%-]*)$')
    record = version and { version, expires ~= '' and expires or nil, tonumber(size), tonumber(depth), last ~= '' and last or nil } or false
    records[verKey] = record
  end
  if not record then return '0', nil end
  return record[1], record[2], record[3], record[4], record[5]
end

local function listed(list, tag)
  return string.find(',' .. list .. ',', ',' .. tag .. ',', 1, true) ~= nil
end

local function preconditionHolds(verKey, exists, ifMatch, ifNoneMatch)
  local current = exists and versionRecord(verKey)
  if ifMatch ~= '' and not (exists and (ifMatch == '*' or listed(ifMatch, current))) then return false end
  if ifNoneMatch ~= '' and exists and (ifNoneMatch == '*' or listed(ifNoneMatch, current)) then return false end
  return true
end

-- Redis' clock, read once per call: in milliseconds and in microseconds.
local clock = nil
local function nowMs()
  if not clock then
    local t = redis.call('TIME')
    local seconds, micros = t[1] + 0, t[2] + 0
    clock = { seconds * 1000 + math.floor(micros / 1000), seconds * 1000000 + micros }
  end
  return clock[1], clock[2]
end

-- Writes a version record in one command. keepTtl: the record keeps its time to live, else it takes the
-- document's (expires, ms since epoch, or none).
local function writeRecord(verKey, version, expires, size, depth, last, keepTtl)
  size = size and math.floor(size + 0.5)
  depth = depth and depth >= 0 and math.floor(depth + 0.5) or nil
  local record = version
  if last or size or depth then
    record = version .. ':' .. (expires or '') .. ':' .. (size and string.format('%d', size) or '') .. ':' ..
      (depth and string.format('%d', depth) or '') .. (last and ':' .. last or '')
  elseif expires then
    record = version .. ':' .. expires
  end
  if keepTtl then
    redis.call('SET', verKey, record, 'KEEPTTL')
  elseif expires then
    redis.call('SET', verKey, record, 'PXAT', expires)
  else
    redis.call('SET', verKey, record)
  end
  records[verKey] = { version, expires, size, depth, last }
end

-- The expiry a write leaves (ms since epoch, or nil) given the record's and ttl: '' keeps it, '0' removes it,
-- else milliseconds from now. Sets the document's own.
local function expiryAfter(docKey, expires, ttl)
  if ttl == '' then return expires end
  if ttl == '0' then
    redis.call('PERSIST', docKey)
    return nil
  end
  local at = string.format('%d', nowMs() + tonumber(ttl))
  redis.call('PEXPIREAT', docKey, at)
  return at
end

-- The time to live of a document alone, its version kept.
local function applyTtl(docKey, verKey, ttl)
  local version, expires, size, depth, last = versionRecord(verKey)
  if ttl == '' then return expires end
  expires = expiryAfter(docKey, expires, ttl)
  writeRecord(verKey, version, expires, size, depth, last, false)
  return expires
end

-- Whether the schema a write was validated with is its collection's current one, by the mirror of the
-- write's slot (see the collections' storage). guard: '-' when there is nothing to check, else the
-- '<generation>:<revision>' the writer read from the schema; a newer one than the mirror holds moves it on.
local function schemaHolds(mirror, collection, guard)
  if guard == '-' then return true end
  local held = redis.call('HGET', mirror, collection) or '0:'
  if held == guard then return true end
  if tonumber(string.match(guard, '^%d+')) <= tonumber(string.match(held, '^%d+')) then return false end
  redis.call('HSET', mirror, collection, guard)
  return true
end

-- The change feed (see src/live). A write names its changes as it makes them: RFC 6902 operations at JSON
-- pointers of the whole document (given JSON-encoded by the caller), none of which moves array elements (an
-- array that gains or loses elements is replaced whole).
local changes = {}
local function changed(op, pointer, value)
  local change = '{"op":"' .. op .. '","path":' .. pointer
  if value then change = change .. ',"value":' .. value end
  changes[#changes + 1] = change .. '}'
end
-- The pointer of a JSON-encoded pointer's parent.
local function parentPointer(pointer) return string.match(pointer, '^(.*)/[^/]*"$') .. '"' end

-- Appends an entry to the event log of the write's slot (log), naming the entry before it in the log (prev);
-- answers its id. The log keeps about maxLen entries. Time is cut into slices by the entries' ids: only the
-- first entry of a slice trims by time (a 64th of the retention) or sets the expiry (a quarter of it). That
-- expiry is the end of the entry's slice plus the retention, so every entry of the slice outlives the
-- retention, and an idle log goes at most a quarter of the retention after that.
local function idMs(id) return string.match(id, '^%d+') + 0 end
local function appendEntry(log, maxLen, retentionMs, ...)
  local last = redis.call('XREVRANGE', log, '+', '-', 'COUNT', 1)[1]
  local id = redis.call('XADD', log, 'MAXLEN', '~', maxLen, '*', 'prev', last and last[1] or '0-0', ...)
  local at, before = idMs(id), last and idMs(last[1]) or -1
  local trimSlice, lifeSlice = retentionMs / 64, retentionMs / 4
  if math.floor(at / trimSlice) ~= math.floor(before / trimSlice) then
    redis.call('XTRIM', log, 'MINID', '~', at - retentionMs)
  end
  local slice = math.floor(at / lifeSlice)
  if slice ~= math.floor(before / lifeSlice) then
    redis.call('PEXPIREAT', log, math.ceil((slice + 1) * lifeSlice) + retentionMs)
  end
  return id
end

-- The event log a call writes to and its bounds, set by the write guard and the batch (see eventLogArgs):
-- { key, maxLen (0: no events), retentionMs, maxEntry }.
local eventLog

-- Keeps changes too long for an entry in the stream beside the log, and answers their id there. It holds
-- at most KEPT_CHANGES_SHARE times maxEntry bytes of them, and always the latest: each of its entries says
-- how many bytes the stream had taken in all with it (t), and the oldest go until the rest fit.
local function keepChanges(log, list)
  local key = log.key .. ${KEPT_CHANGES_LUA}
  local last = redis.call('XREVRANGE', key, '+', '-', 'COUNT', 1)[1]
  local total = (last and tonumber(last[2][2]) or 0) + #list
  local id = redis.call('XADD', key, '*', 't', string.format('%d', total), 'c', list)
  local budget = log.maxEntry * ${KEPT_CHANGES_SHARE}
  while true do
    local first = redis.call('XRANGE', key, '-', '+', 'COUNT', 1)[1]
    if first[1] == id or total - (tonumber(first[2][2]) - #first[2][4]) <= budget then break end
    redis.call('XDEL', key, first[1])
  end
  redis.call('PEXPIRE', key, log.retentionMs + math.ceil(log.retentionMs / 4))
  return id
end

-- Records the call's changes as one entry of the log: the document's Redis key, the version they made ('' for
-- a removal), and the document's previous entry (previous, '0-0' for none), so that a stream of the document
-- follows its entries alone. maxEntry: the longest changes an entry carries; a write's longer ones are kept
-- beside the log (keepChanges), and the entry names them (o), so that the log's entries stay short whatever is
-- written. Answers the entry's id, nil when nothing was recorded.
local function recordEvent(docKey, version, previous)
  local log = eventLog
  if #changes == 0 or log.maxLen == 0 then return nil end
  local list = '[' .. table.concat(changes, ',') .. ']'
  changes = {}
  if #list > log.maxEntry then
    return appendEntry(log.key, log.maxLen, log.retentionMs, 'k', docKey, 'p', previous or '0-0', 'v', version, 'o', keepChanges(log, list))
  end
  return appendEntry(log.key, log.maxLen, log.retentionMs, 'k', docKey, 'p', previous or '0-0', 'v', version, 'c', list)
end

-- Commits a write of a document (its Redis key docKey; valueKey holds what was written, the document or its
-- copy): a new version, growing with the clock so that a document deleted and written again never repeats an
-- ETag; the expiry ttl leaves; the entry of its changes; then the version record, once. size and depth: the
-- document's bounds after the write; nil keeps what the record says, a depth of -1 forgets it.
-- Answers the version and the expiry.
local function commit(docKey, verKey, ttl, valueKey, size, depth)
  local _, nowUs = nowMs()
  local old, expires, oldSize, oldDepth, last = versionRecord(verKey)
  local version = string.format('%d', math.max(old + 1, nowUs))
  -- A removed document's record expires with the retention (see removeDocument): its successor's does not.
  local keepTtl = ttl == '' and not (old == '0' and last and not expires)
  expires = expiryAfter(valueKey, expires, ttl)
  last = recordEvent(docKey, version, last) or last
  writeRecord(verKey, version, expires, size or oldSize, depth or oldDepth, last, keepTtl)
  return version, expires
end

-- Removes a whole document (held at valueKey, its Redis key docKey) and records it; its record stays as
-- "0::::last" for the retention (see versionRecord).
local function removeDocument(valueKey, verKey, docKey)
  local _, _, _, _, last = versionRecord(verKey)
  redis.call('DEL', valueKey)
  last = recordEvent(docKey, '', last) or last
  if last and eventLog.maxLen > 0 then
    redis.call('SET', verKey, '0::::' .. last, 'PX', eventLog.retentionMs)
    records[verKey] = { '0', nil, nil, nil, last }
  else
    redis.call('DEL', verKey)
    records[verKey] = false
  end
end

-- Makes the copy the document, keeping the document's time to live.
local function replaceWith(docKey, copyKey)
  local ttl = redis.call('PTTL', docKey)
  redis.call('RENAME', copyKey, docKey)
  if ttl > 0 then redis.call('PEXPIRE', docKey, ttl) end
end

-- The write guard's state for the call, set by every single-document write before its body runs (see
-- guardedWrite): a table rather than closures over the guard's locals, which Lua makes at a cost per local.
local guard

local function baseVersion(doc, ver)
  if redis.call('EXISTS', doc) == 0 then return 'absent' end
  return (versionRecord(ver))
end

-- The document's size and depth after the write (nil when it keeps them), measured when they may pass
-- the limit; nil and the size when they do.
local function settle(g)
  if g.sizing == 'keep' then return nil, nil end
  local depth = g.depthBefore and g.depthAfter and math.max(g.depthBefore, g.depthAfter) or -1
  if not g.measuring then return g.sizeBefore + g.growth, depth end
  local size = #redis.call('JSON.GET', g.doc, '$') - 2
  spend(size)
  if size > g.maxBytes then return nil, nil, size end
  return size, depth
end

-- The reply of a guarded write that succeeded: the value at loc when asked for (or value), the new
-- version; a preview answers the version it saw and records nothing.
local function done(status, loc, value)
  local g = guard
  local size, depth, tooLarge = settle(g)
  if tooLarge then return { 'toolarge', tooLarge } end
  if value == nil then value = g.wantValue and loc and getAt(g.doc, loc) or false end
  if g.previewing then return { status, (versionRecord(g.ver)), value, false } end
  local version, expires = commit(g.realDoc, g.ver, g.ttl, g.doc, size, depth)
  return { status, version, value, expires or false }
end
`

/**
 * The prelude as the function library holds it: defined once, its state (the arguments read, the work
 * budget, the version records seen, the clock) made new at the start of every call.
 */
export const documentLua: SharedLua = { name: 'documents', source: prelude, reset: 'argi, workLeft, records, changes, clock, eventLog = 0, math.huge, {}, {}, nil, nil' }
