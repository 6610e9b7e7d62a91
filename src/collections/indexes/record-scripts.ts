import { LuaScript } from '../../redis/lua-script.js'
import { protocol, text } from '../../redis/script-protocol.js'

/*
 * The scripts that change a collection's index record (see storage.ts): each reads and writes the hash at
 * once, so that PUTs, promotions and DELETEs from several instances never interleave within one.
 */

/**
 * Declares a definition: 'same' when it is the latest already (built or building) and the generation it has is
 * not `replacing` (one found missing, or made without companion attributes), else 'new' with its generation, declared now (`declaredAt`,
 * Redis' clock in ms) and marked as made with companion attributes (`companions`). With `ifLatest` '1', a
 * definition that is no longer the latest declares nothing ('changed'). Each with the definition, building
 * generation and mark the declaration replaced, to undo it.
 */
export const putIndexScript = new LuaScript('put-index', protocol({
  keys: ['index'], args: { definition: text, replacing: text, ifLatest: text },
  reply: (raw) => raw as [status: 'same' | 'new' | 'changed', generation: string, active: string, building: string, replacedDefinition: string,
    replacedCompanions: string]
}), `
local def, gen, active, building, companions = unpack(redis.call('HMGET', index, 'definition', 'generation', 'active', 'building', 'companions'))
local replaced = { gen or '', active or '', building or '', def or '', companions or '' }
if def == definition and (active or building) and (building or active) ~= replacing then return { 'same', unpack(replaced) } end
if ifLatest == '1' and def ~= definition then return { 'changed', unpack(replaced) } end
local next = tostring(tonumber(gen or '0') + 1)
local now = redis.call('TIME')
redis.call('HSET', index, 'definition', definition, 'generation', next, 'building', next, 'companions', next,
  'declaredAt', now[1] .. string.sub(now[2] + 1000000, 2, 4))
replaced[1] = next
return { 'new', unpack(replaced) }
`)

/**
 * Undoes the declaration of a generation whose RediSearch indexes could not be made: the definition, the
 * building generation and the companions mark it replaced come back ('' for none). Nothing changes once a
 * later declaration came.
 */
export const undoPutIndexScript = new LuaScript('undo-put-index', protocol({
  keys: ['index'], args: { generation: text, definition: text, building: text, companions: text }, reply: (raw) => raw === 1
}), `
if redis.call('HGET', index, 'building') ~= generation then return 0 end
for name, value in pairs({ definition = definition, building = building, companions = companions }) do
  if value == '' then redis.call('HDEL', index, name) else redis.call('HSET', index, name, value) end
end
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
redis.call('HDEL', index, 'definition', 'active', 'building', 'activeDefinition', 'declaredAt', 'companions')
return { active or '', building or '' }
`)
