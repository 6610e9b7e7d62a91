/*
 * Lua shared by every document script. Conventions:
 * - A document is two keys: the JSON document and its version record, "version" or
 *   "version:expiresAtMs" when it has a time to live.
 * - A pointer arrives as a count n, then n pairs (member step, index): the member step is the escaped
 *   RedisJSON step `["name"]`; index is the token when it is a canonical array index, '-' for "-",
 *   and '' otherwise.
 * - Preconditions arrive as strings: '' when absent, '*', or versions joined by ','.
 */
export const prelude = `
local argi = 0
local function arg() argi = argi + 1; return ARGV[argi] end
local function tokensArg()
  local n, tokens = tonumber(arg()), {}
  for i = 1, n do tokens[i] = { member = arg(), index = arg() } end
  return tokens
end

local function kindOf(key)
  local k = redis.call('TYPE', key).ok
  if k == 'none' then return nil end
  if k ~= 'ReJSON-RL' then return 'wrongtype' end
  return 'json'
end

local function typeAt(key, path)
  return redis.call('JSON.TYPE', key, path)[1]
end

local function isIndex(index) return index ~= '' and index ~= '-' end

-- Digits address an element of an array and a member of anything else.
local function resolve(key, tokens, upto)
  local path = '$'
  for i = 1, upto do
    local token = tokens[i]
    if isIndex(token.index) and typeAt(key, path) == 'array' then
      path = path .. '[' .. token.index .. ']'
    else
      path = path .. token.member
    end
  end
  return path
end

-- Where tokens lead: path (nil when an array is addressed by anything but an index), its parent and
-- the parent's type (nil when missing), and the last token.
local function locate(key, tokens)
  local n = #tokens
  if n == 0 then return { path = '$' } end
  local parent = resolve(key, tokens, n - 1)
  local parentType = typeAt(key, parent)
  local last = tokens[n]
  local path
  if parentType == 'array' then
    if isIndex(last.index) then path = parent .. '[' .. last.index .. ']' end
  else
    path = parent .. last.member
  end
  return { path = path, parent = parent, parentType = parentType, last = last }
end

local function present(key, loc)
  return loc.path ~= nil and typeAt(key, loc.path) ~= nil
end

local function unwrap(matches) return string.sub(matches, 2, -2) end

local function valueAt(key, path) return unwrap(redis.call('JSON.GET', key, path)) end

local function versionRecord(verKey)
  local record = redis.call('GET', verKey)
  if not record then return '0', nil end
  local version, expires = string.match(record, '^(%d+):?(%d*)$')
  if not version then return '0', nil end
  if expires == '' then expires = nil end
  return version, expires
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

local function nowMs()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000), tonumber(t[1]) * 1000000 + tonumber(t[2])
end

local function writeRecord(verKey, version, expires)
  local record = version
  if expires then record = version .. ':' .. expires end
  redis.call('SET', verKey, record, 'KEEPTTL')
end

-- Versions grow with the clock, so a document deleted and created again never repeats an ETag.
local function bump(verKey)
  local _, nowUs = nowMs()
  local old, expires = versionRecord(verKey)
  local version = string.format('%.0f', math.max(tonumber(old) + 1, nowUs))
  writeRecord(verKey, version, expires)
  return version, expires
end

-- ttl: '' keeps the current expiry, '0' removes it, else milliseconds from now.
local function applyTtl(docKey, verKey, ttl)
  local version, expires = versionRecord(verKey)
  if ttl == '' then return expires end
  if ttl == '0' then
    redis.call('PERSIST', docKey)
    redis.call('PERSIST', verKey)
    writeRecord(verKey, version, nil)
    return nil
  end
  local at = string.format('%.0f', nowMs() + tonumber(ttl))
  writeRecord(verKey, version, at)
  redis.call('PEXPIREAT', docKey, at)
  redis.call('PEXPIREAT', verKey, at)
  return at
end

-- Makes the copy the document, keeping the document's time to live.
local function replaceWith(docKey, copyKey)
  local ttl = redis.call('PTTL', docKey)
  redis.call('RENAME', copyKey, docKey)
  if ttl > 0 then redis.call('PEXPIRE', docKey, ttl) end
end
`

/** The header every single-document script starts with: keys, preconditions, ttl and the location. */
export const documentHeader = `
local doc, ver = KEYS[1], KEYS[2]
local ifMatch, ifNoneMatch, wantValue, ttl = arg(), arg(), arg() == '1', arg()
local tokens = tokensArg()

local function done(status, path)
  local value = false
  if wantValue and path then value = valueAt(doc, path) end
  local version = bump(ver)
  local expires = applyTtl(doc, ver, ttl)
  return { status, version, value, expires or false }
end
`
