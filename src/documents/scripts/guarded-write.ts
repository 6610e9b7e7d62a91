import { LuaScript } from '../../redis/lua-script.js'
import {
  flag, number, optionalNumber, optionalNumberText, protocol, text, type Arg, type ArgSpec, type ArgsOf, type KeysOf
} from '../../redis/script-protocol.js'
import { documentLua } from './prelude.js'
import { documentReply, writtenPointer, type DocumentReply } from './protocol.js'

/*
 * The protocol every single-document write script shares: its keys, the head of its arguments
 * (preconditions, ttl, location), the write guard's sizing, the change feed's bounds, and the Lua that
 * checks them first and commits the write last (see guardedWrite).
 */

/** The keys of a single-document write: the document, its version record, two scratch keys, the guard's two, its slot's event log. */
const WRITE_KEYS = ['doc', 'ver', 'work', 'scratch', 'mirror', 'copyKey', 'log'] as const

/** What every single-document write takes first: preconditions, whether to answer the value, ttl, the location. */
const writeHead = {
  ifMatch: text,
  ifNoneMatch: text,
  wantValue: flag,
  /** '' keeps the expiry, '0' removes it, else milliseconds from now. */
  ttl: optionalNumberText,
  tokens: writtenPointer
}

/** The sizing of a write, as the write guard takes it: see Sizing in the store. */
type SizingMode = 'add' | 'replace' | 'keep'

/*
 * Every document write runs behind this guard. Its keys: the schema mirror of the document's slot, a copy
 * key and the slot's event log (see recordEvent). Its arguments, after the head: the document's collection and the schema guard (see schemaHolds), the
 * base version ('' when any will do, 'absent' for no document), whether to preview, then the write's sizing:
 * the bytes it may add to the document's text (none when unknown), the depth it may give it (none when
 * unknown), how it changes them ('add', 'replace' for a whole new document, 'keep' for writes that cannot
 * grow one), and the limits: the longest document and the work a script may do, in bytes.
 * A preview applies the write to a copy and answers { 'preview', status, base version, whole document }
 * leaving Redis as it was; the caller validates that document and then writes for real with the base
 * version, so a write validated against a document that has changed since is answered 'stale' and never
 * lands. A write that may take the document past the limit runs on a copy too, measured before it
 * replaces the document: { 'toolarge', size } leaves Redis as it was.
 */
const guardArgs = {
  collection: text,
  schemaGuard: text,
  base: text,
  previewing: flag,
  growth: optionalNumber,
  depthAfter: optionalNumber,
  sizing: text as Arg<SizingMode>,
  maxBytes: number,
  maxWork: number
}

/**
 * What every write script takes to record its events (see recordEvent): the entries the event log keeps, about
 * (0: no events), how long it keeps them (EVENTS_RETENTION_MS), and the longest changes an entry carries
 * (EVENTS_MAX_ENTRY_BYTES).
 */
export const eventLogArgs = {
  logMaxLen: number,
  retentionMs: number,
  maxEntryBytes: number
}
export type EventLogBounds = ArgsOf<typeof eventLogArgs>

/** The Lua that points the call's eventLog at its log key and bounds. */
export const useEventLog = (key: string) =>
  `eventLog = { key = ${key}, maxLen = logMaxLen, retentionMs = retentionMs, maxEntry = maxEntryBytes }\n`

/** What every single-document write takes for the change feed: the location as a JSON-encoded pointer, and the bounds. */
const feedArgs = { location: text, ...eventLogArgs }

export type WriteKeys = KeysOf<typeof WRITE_KEYS[number]>
export type WriteFeed = ArgsOf<typeof feedArgs>
export type WriteHead = ArgsOf<typeof writeHead>
export type WriteGuard = ArgsOf<typeof guardArgs>

/** A single-document write script: its own arguments Op after the head and the guard's, its value V. */
export type GuardedScript<Op, V> = LuaScript<WriteKeys, WriteHead & WriteGuard & WriteFeed & Op, DocumentReply<V>>

const writeGuard = useEventLog('log') + `
if not schemaHolds(mirror, collection, schemaGuard) then return { 'schemachanged' } end
if base ~= '' and baseVersion(doc, ver) ~= base then return { 'stale' } end

workLeft = maxWork

local _, _, sizeBefore, depthBefore = versionRecord(ver)
if sizing == 'replace' then sizeBefore, depthBefore = 0, 0 end
local measuring = sizing ~= 'keep' and not (sizeBefore and growth and sizeBefore + growth <= maxBytes)
local realDoc, seenBase = doc, nil
if previewing then
  seenBase = baseVersion(doc, ver)
end
if previewing or measuring then
  redis.call('DEL', copyKey)
  if redis.call('EXISTS', doc) == 1 then redis.call('COPY', doc, copyKey) end
  doc = copyKey
end
guard = {
  doc = doc, ver = ver, realDoc = realDoc, wantValue = wantValue, ttl = ttl, previewing = previewing,
  sizing = sizing, measuring = measuring, sizeBefore = sizeBefore,
  depthBefore = depthBefore, depthAfter = depthAfter, growth = growth, maxBytes = maxBytes
}
`

const commitReply = `
local finished, reply = pcall(main)
if not finished then
  redis.call('DEL', copyKey, work, scratch)
  if reply == TOO_COSTLY then return { 'toocostly' } end
  error(reply)
end
local status = reply[1]
local succeeded = status == 'ok' or status == 'created'
if previewing then
  local text = succeeded and redis.call('EXISTS', doc) == 1 and redis.call('JSON.GET', doc)
  redis.call('DEL', copyKey)
  if succeeded then return { 'preview', status, seenBase, text } end
elseif doc ~= realDoc then
  if succeeded and redis.call('EXISTS', doc) == 1 then redis.call('RENAME', doc, realDoc) else redis.call('DEL', doc) end
end
return reply
`

/**
 * A single-document write script named name, taking args after the head and the guard's and answering values
 * value parses: the prelude, the write guard, then the body.
 */
export function guardedWrite<A extends ArgSpec, V> (name: string, args: A, value: (raw: unknown) => V,
  body: string, helpers = ''): GuardedScript<ArgsOf<A>, V> {
  const declared = protocol({ keys: WRITE_KEYS, args: { ...writeHead, ...guardArgs, ...feedArgs, ...args }, reply: documentReply(value) })
  return new LuaScript(name, declared, helpers + writeGuard + `local function main()\n${body}\nend\n` + commitReply,
    { shared: documentLua }) as unknown as GuardedScript<ArgsOf<A>, V>
}
