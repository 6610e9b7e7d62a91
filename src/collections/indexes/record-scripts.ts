import { LuaScript } from '../../redis/lua-script.js'
import { protocol, text } from '../../redis/script-protocol.js'

/*
 * The scripts that change a collection's index record (see storage.ts): each reads and writes the hash at
 * once, so that PUTs, promotions and DELETEs from several instances never interleave within one.
 */

/** Declares a definition: 'same' when it is the latest already (built or building), else 'new' with its generation. */
export const putIndexScript = new LuaScript('put-index', protocol({
  keys: ['index'], args: { definition: text }, reply: (raw) => raw as [status: 'same' | 'new', generation: string, active: string, building: string]
}), `
local def, gen, active, building = unpack(redis.call('HMGET', index, 'definition', 'generation', 'active', 'building'))
if def == definition and (active or building) then return { 'same', gen, active or '', building or '' } end
local next = tostring(tonumber(gen or '0') + 1)
redis.call('HSET', index, 'definition', definition, 'generation', next, 'building', next)
return { 'new', next, active or '', building or '' }
`)

/** Makes a generation found ready the active one: the generation it replaces ('' when none), or null when it is no longer being built. */
export const promoteIndexScript = new LuaScript('promote-index', protocol({
  keys: ['index'], args: { generation: text }, reply: (raw) => typeof raw === 'string' ? raw : null
}), `
if redis.call('HGET', index, 'building') ~= generation then return false end
local old = redis.call('HGET', index, 'active')
redis.call('HSET', index, 'active', generation, 'activeDefinition', redis.call('HGET', index, 'definition'))
redis.call('HDEL', index, 'building')
return old or ''
`)

/** Forgets an index's definition: its { active, building } generations ('' when none), or null when there is no index. */
export const deleteIndexScript = new LuaScript('delete-index', protocol({
  keys: ['index'], args: {}, reply: (raw) => Array.isArray(raw) ? raw as [active: string, building: string] : null
}), `
local active, building = unpack(redis.call('HMGET', index, 'active', 'building'))
if not active and not building then return false end
redis.call('HDEL', index, 'definition', 'active', 'building', 'activeDefinition')
return { active or '', building or '' }
`)
