import { LuaScript } from '../redis/lua-script.js'

/*
 * The document writes, each one Lua script so that resolving the location, checking preconditions,
 * writing and bumping the version happen atomically.
 *
 * KEYS: the document, its version. ARGV: If-Match list ('' none, '*', or versions joined by ','),
 * If-None-Match list (same form), '1' to return the value written, the pointer's token count n, then
 * n pairs (member step, index step or ''), then what the operation needs.
 * Reply: { status, version, value } where status is ok | created | notfound | precondition | wrongtype.
 */
const prelude = `
local doc, ver = KEYS[1], KEYS[2]
local ifMatch, ifNoneMatch, wantValue = ARGV[1], ARGV[2], ARGV[3] == '1'
local depth = tonumber(ARGV[4])
local after = 5 + 2 * depth

local function kind()
  local k = redis.call('TYPE', doc).ok
  if k == 'none' then return nil end
  if k ~= 'ReJSON-RL' then return 'wrongtype' end
  return 'json'
end

local function typeAt(path)
  return redis.call('JSON.TYPE', doc, path)[1]
end

-- Digits address an element of an array and a member of anything else.
local function resolve()
  local path, parent = '$', nil
  for i = 0, depth - 1 do
    local member, index = ARGV[5 + 2 * i], ARGV[6 + 2 * i]
    parent = path
    if index ~= '' and typeAt(path) == 'array' then path = path .. index else path = path .. member end
  end
  return path, parent
end

local function listed(list, tag)
  return string.find(',' .. list .. ',', ',' .. tag .. ',', 1, true) ~= nil
end

local function preconditionHolds(exists)
  local current = exists and (redis.call('GET', ver) or '0')
  if ifMatch ~= '' and not (exists and (ifMatch == '*' or listed(ifMatch, current))) then return false end
  if ifNoneMatch ~= '' and exists and (ifNoneMatch == '*' or listed(ifNoneMatch, current)) then return false end
  return true
end

-- Versions grow with the clock, so a document deleted and created again never repeats an ETag.
local function bump()
  local t = redis.call('TIME')
  local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
  local old = tonumber(redis.call('GET', ver) or '0') or 0
  local version = string.format('%.0f', math.max(old + 1, now))
  redis.call('SET', ver, version)
  return version
end

local function done(status, path)
  local value = false
  if wantValue and path then value = redis.call('JSON.GET', doc, path) end
  return { status, bump(), value }
end
`

/** PUT: create or replace the document, or replace or add the value at a location. */
export const putScript = new LuaScript(prelude + `
local k = kind()
if k == 'wrongtype' then return { k } end
local value = ARGV[after]
if depth == 0 then
  if not preconditionHolds(k ~= nil) then return { 'precondition' } end
  redis.call('JSON.SET', doc, '$', value)
  return done(k and 'ok' or 'created', '$')
end
if not k then return { 'notfound' } end
local path, parent = resolve()
local present = typeAt(path) ~= nil
if not present and typeAt(parent) ~= 'object' then return { 'notfound' } end
if not preconditionHolds(true) then return { 'precondition' } end
redis.call('JSON.SET', doc, path, value)
return done(present and 'ok' or 'created', path)
`)

/**
 * PATCH (RFC 7396) at a location. ARGV after the steps: the patch, and '1' when it is an object.
 * JSON.MERGE into a location that does not exist stores the patch as is, nulls included; RFC 7396
 * merges it into an empty object, which is what happens here.
 */
export const mergeScript = new LuaScript(prelude + `
local k = kind()
if k ~= 'json' then return { k or 'notfound' } end
local patch, patchIsObject = ARGV[after], ARGV[after + 1] == '1'
local path, present = '$', true
if depth > 0 then
  local parent
  path, parent = resolve()
  present = typeAt(path) ~= nil
  if not present and typeAt(parent) ~= 'object' then return { 'notfound' } end
end
if not preconditionHolds(true) then return { 'precondition' } end
if present or patchIsObject then
  if not present then redis.call('JSON.SET', doc, path, '{}') end
  redis.call('JSON.MERGE', doc, path, patch)
else
  redis.call('JSON.SET', doc, path, patch)
end
return done(present and 'ok' or 'created', path)
`)

/** DELETE: the whole document (and its version), or the value at a location. */
export const deleteScript = new LuaScript(prelude + `
local k = kind()
if k ~= 'json' then return { k or 'notfound' } end
if depth == 0 then
  if not preconditionHolds(true) then return { 'precondition' } end
  redis.call('DEL', doc, ver)
  return { 'ok', false, false }
end
local path = resolve()
if typeAt(path) == nil then return { 'notfound' } end
if not preconditionHolds(true) then return { 'precondition' } end
redis.call('JSON.DEL', doc, path)
return done('ok', nil)
`)

/** GET of a location whose digit tokens did not all address array elements: resolve, then read. */
export const readScript = new LuaScript(prelude + `
local k = kind()
if k ~= 'json' then return { k or 'notfound' } end
local value = redis.call('JSON.GET', doc, (resolve()))
if value == '[]' then return { 'notfound' } end
return { 'ok', redis.call('GET', ver) or '0', value }
`)
