import { LuaScript } from '../../redis/lua-script.js'
import { number, protocol, text } from '../../redis/script-protocol.js'
import { documentLua, KEPT_CHANGES_LUA } from './prelude.js'
import { pointer } from './protocol.js'

/**
 * What snapshotScript answers: the document's last entry in the event log ('0-0' when none), the log's last
 * entry ('0-0' when none), and the value with its version when there is one.
 */
export type SnapshotReply = [status: 'ok' | 'notfound', at: string, logAt: string, value?: string, version?: string]

/**
 * The value at a location, the document's last entry and the log's, in one step: a stream of the location
 * starts from this value and goes on with the document's entries after that one, read from the log after its last.
 */
export const snapshotScript = new LuaScript('snapshot', protocol({
  keys: ['doc', 'ver', 'log'], args: { tokens: pointer, maxWork: number }, reply: (raw) => raw as SnapshotReply
}), `
workLeft = maxWork
local tail = redis.call('XREVRANGE', log, '+', '-', 'COUNT', 1)[1]
local logAt = tail and tail[1] or '0-0'
local _, _, _, _, last = versionRecord(ver)
local at = last or '0-0'
if kindOf(doc) ~= 'json' then return { 'notfound', at, logAt } end
local value = getAt(doc, locate(doc, tokens))
if not value then return { 'notfound', at, logAt } end
return { 'ok', at, logAt, value, (versionRecord(ver)) }
`, { shared: documentLua, readOnly: true })

/**
 * What documentEntriesScript answers: how the walk ended ('reached' the entry `stop`, the document's 'first'
 * entry, a 'missing' entry, or 'more' past its bounds), then the entries it read, newest first.
 */
export type ChainReply = [ended: 'reached' | 'first' | 'missing' | 'more', ...entries: Array<[string, string[]]>]

/**
 * The entries of one document in its slot's event log, newest first: from the entry `from` ('' for the
 * document's last, by its version record) back along each entry's `p` (the document's entry before it),
 * until the entry `stop` (not included), the document's first, a missing entry (trimmed), or past `count`
 * entries or `maxBytes` of their fields. An entry whose changes were kept beside the log (see keepChanges)
 * comes with them, as one that carries its own, while they are kept.
 */
export const documentEntriesScript = new LuaScript('document-entries', protocol({
  keys: ['ver', 'log'], args: { from: text, stop: text, count: number, maxBytes: number }, reply: (raw) => raw as ChainReply
}), `
local id = from
if id == '' then
  local _, _, _, _, last = versionRecord(ver)
  id = last or '0-0'
end
local found, bytes = { 'more' }, 0
while true do
  if id == stop then found[1] = 'reached' return found end
  if id == '0-0' then found[1] = 'first' return found end
  if #found > count or bytes > maxBytes then return found end
  local entry = redis.call('XRANGE', log, id, id)[1]
  if not entry then found[1] = 'missing' return found end
  found[#found + 1] = entry
  local fields, previous = entry[2], '0-0'
  for i = 1, #fields, 2 do
    if fields[i] == 'o' and fields[i + 1] ~= '1' then
      local kept = redis.call('XRANGE', log .. ${KEPT_CHANGES_LUA}, fields[i + 1], fields[i + 1])[1]
      if kept then fields[i], fields[i + 1] = 'c', kept[2][4] end
    end
    bytes = bytes + #fields[i + 1]
    if fields[i] == 'p' then previous = fields[i + 1] end
  end
  id = previous
end
`, { shared: documentLua, readOnly: true })
