import { LuaScript } from '../../redis/lua-script.js'
import { protocol, text } from '../../redis/script-protocol.js'

/*
 * The scripts that change a collection's index record (see storage.ts): each reads and writes the hash at
 * once, so that PUTs, promotions and DELETEs from several instances never interleave within one.
 */

/**
 * Declares a definition: 'same' when it is the latest already (built or building) and the generation it has is
 * not `replacing` (one found missing), else 'new' with its generation, declared now (`declaredAt`, Redis' clock
 * in ms). Both with the definition and building generation the declaration replaced, to undo it.
 */
export const putIndexScript = new LuaScript('put-index', protocol({
  keys: ['index'], args: { definition: text, replacing: text },
  reply: (raw) => raw as [status: 'same' | 'new', generation: string, active: string, building: string, replacedDefinition: string]
}), `
local def, gen, active, building = unpack(redis.call('HMGET', index, 'definition', 'generation', 'active', 'building'))
if def == definition and (active or building) and (building or active) ~= replacing then return { 'same', gen, active or '', building or '', def } end
local next = tostring(tonumber(gen or '0') + 1)
local now = redis.call('TIME')
redis.call('HSET', index, 'definition', definition, 'generation', next, 'building', next, 'declaredAt', now[1] .. string.sub(now[2] + 1000000, 2, 4))
return { 'new', next, active or '', building or '', def or '' }
`)

/**
 * Undoes the declaration of a generation whose RediSearch indexes could not be made: the definition and the
 * building generation it replaced come back ('' for none). Nothing changes once a later declaration came.
 */
export const undoPutIndexScript = new LuaScript('undo-put-index', protocol({
  keys: ['index'], args: { generation: text, definition: text, building: text }, reply: (raw) => raw === 1
}), `
if redis.call('HGET', index, 'building') ~= generation then return 0 end
if definition == '' then redis.call('HDEL', index, 'definition') else redis.call('HSET', index, 'definition', definition) end
if building == '' then redis.call('HDEL', index, 'building') else redis.call('HSET', index, 'building', building) end
redis.call('HDEL', index, 'declaredAt')
return 1
`)

/** Makes a generation found ready the active one: the generation it replaces ('' when none), or null when it is no longer being built. */
export const promoteIndexScript = new LuaScript('promote-index', protocol({
  keys: ['index'], args: { generation: text }, reply: (raw) => typeof raw === 'string' ? raw : null
}), `
if redis.call('HGET', index, 'building') ~= generation then return false end
local old = redis.call('HGET', index, 'active')
redis.call('HSET', index, 'active', generation, 'activeDefinition', redis.call('HGET', index, 'definition'))
redis.call('HDEL', index, 'building', 'declaredAt')
return old or ''
`)

/** Forgets an index's definition: its { active, building } generations ('' when none), or null when there is no index. */
export const deleteIndexScript = new LuaScript('delete-index', protocol({
  keys: ['index'], args: {}, reply: (raw) => Array.isArray(raw) ? raw as [active: string, building: string] : null
}), `
local active, building = unpack(redis.call('HMGET', index, 'active', 'building'))
if not active and not building then return false end
redis.call('HDEL', index, 'definition', 'active', 'building', 'activeDefinition', 'declaredAt')
return { active or '', building or '' }
`)
