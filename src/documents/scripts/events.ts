import { LuaScript } from '../../redis/lua-script.js'
import { number, protocol } from '../../redis/script-protocol.js'
import { documentLua } from './prelude.js'
import { pointer } from './protocol.js'

/** What snapshotScript answers: the last entry's id ('0-0' when none), and the value with its version when there is one. */
export type SnapshotReply = [status: 'ok' | 'notfound', at: string, value?: string, version?: string]

/**
 * The value at a location and the last entry of the document's events stream, in one step: a stream starts
 * from this value and goes on with the entries after that one.
 */
export const snapshotScript = new LuaScript('snapshot', protocol({
  keys: ['doc', 'ver', 'events'], args: { tokens: pointer, maxWork: number }, reply: (raw) => raw as SnapshotReply
}), `
workLeft = maxWork
local last = redis.call('XREVRANGE', events, '+', '-', 'COUNT', 1)[1]
local at = last and last[1] or '0-0'
if kindOf(doc) ~= 'json' then return { 'notfound', at } end
local value = getAt(doc, locate(doc, tokens))
if not value then return { 'notfound', at } end
return { 'ok', at, value, (versionRecord(ver)) }
`, { shared: documentLua, readOnly: true })
