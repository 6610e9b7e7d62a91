import { flag, text } from '../../redis/script-protocol.js'
import { guardedWrite } from './guarded-write.js'
import { jsonText, noValue } from './protocol.js'

/*
 * Each script answers { status, version, value, expiresAt } where status is ok | created | notfound |
 * precondition | wrongtype, or what the write guard answers (see guardedWrite).
 */

/** PUT: create or replace the document, or replace or add the value at a location. */
export const putScript = guardedWrite('put', { value: text }, jsonText, `
local k = kindOf(doc)
if k == 'wrongtype' then return { k } end
if #tokens == 0 then
  if not preconditionHolds(ver, k ~= nil, ifMatch, ifNoneMatch) then return { 'precondition' } end
  redis.call('JSON.SET', doc, '$', value)
  changed('replace', location, value)
  return done(k and 'ok' or 'created', locate(doc, tokens))
end
if not k then return { 'notfound' } end
local loc = locate(doc, tokens)
-- Without preconditions, replacing a value that is there takes one command (XX sets only what exists).
if ifMatch == '' and ifNoneMatch == '' and loc.path and redis.call('JSON.SET', doc, loc.path, value, 'XX') then
  changed('replace', location, value)
  return done('ok', loc)
end
local existed = present(doc, loc)
if not existed and loc.parentType ~= 'object' then return { 'notfound' } end
if not preconditionHolds(ver, true, ifMatch, ifNoneMatch) then return { 'precondition' } end
setAt(doc, loc, value)
changed(existed and 'replace' or 'add', location, value)
return done(existed and 'ok' or 'created', loc)
`)

/**
 * PATCH (RFC 7396) at a location, given the patch and whether it is an object.
 * JSON.MERGE into a location that does not exist stores the patch as is, nulls included; RFC 7396
 * merges it into an empty object, which is what happens here.
 */
export const mergeScript = guardedWrite('merge', { patch: text, patchIsObject: flag }, jsonText, `
local k = kindOf(doc)
if k ~= 'json' then return { k or 'notfound' } end
local loc = locate(doc, tokens)
local existed = present(doc, loc)
if not existed and loc.parentType ~= 'object' then return { 'notfound' } end
if not preconditionHolds(ver, true, ifMatch, ifNoneMatch) then return { 'precondition' } end
if existed or patchIsObject then
  if not existed then redis.call('JSON.SET', doc, loc.path, '{}') end
  redis.call('JSON.MERGE', doc, loc.path, patch)
else
  redis.call('JSON.SET', doc, loc.path, patch)
end
local merged = getAt(doc, loc)
spend(#merged)
changed(existed and 'replace' or 'add', location, merged)
return done(existed and 'ok' or 'created', loc)
`)

/** DELETE: the whole document (and its version), or the value at a location. */
export const deleteScript = guardedWrite('delete', {}, jsonText, `
local k = kindOf(doc)
if k ~= 'json' then return { k or 'notfound' } end
if #tokens == 0 then
  if not preconditionHolds(ver, true, ifMatch, ifNoneMatch) then return { 'precondition' } end
  changed('remove', location)
  removeDocument(doc, ver, realDoc)
  return { 'ok', false, false, false }
end
local loc = locate(doc, tokens)
if not present(doc, loc) then return { 'notfound' } end
if not preconditionHolds(ver, true, ifMatch, ifNoneMatch) then return { 'precondition' } end
deleteAt(doc, loc)
if isIndex(loc.last.index) and loc.parentType == 'array' then
  changed('replace', parentPointer(location), valueAt(doc, loc.parent))
else
  changed('remove', location)
end
return done('ok', nil)
`)

/** The time to live of a whole document on its own: ttl '' reads it, '0' removes it, else sets it. */
export const expiryScript = guardedWrite('expiry', {}, noValue, `
local k = kindOf(doc)
if k ~= 'json' then return { k or 'notfound' } end
if ttl ~= '' and not preconditionHolds(ver, true, ifMatch, ifNoneMatch) then return { 'precondition' } end
-- A document written straight into Redis has no record: its version stays '0' (a TTL is no change of its value).
local version = versionRecord(ver)
return { 'ok', version, false, applyTtl(doc, ver, ttl) or false }
`)
