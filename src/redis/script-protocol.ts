/*
 * The protocol between TypeScript and a Lua script, declared once: the keys by name, the arguments by name
 * in order, each with how TypeScript writes it and how Lua reads it back, and how the reply is parsed. From
 * that declaration come the call's KEYS and ARGV (encode), the typed reply (decode) and the Lua locals the
 * script's body starts with (lua). Pure: no Redis here.
 */

/** How one argument travels: TypeScript writes its value as strings, Lua reads them back into a local. */
export interface Arg<T> {
  /** Appends the value's strings to a call's arguments. */
  readonly write: (value: T, args: string[]) => void
  /**
   * The Lua expression of the value, given that of its one string (`ARGV[3]`, or `arg()` when read in turn);
   * undefined when the script's body reads the argument itself, from the position its local holds.
   */
  readonly lua: ((raw: string) => string) | undefined
  /** Whether it always takes exactly one string. */
  readonly single: boolean
}

/**
 * Lua that reads arguments in turn, for protocols with an argument of variable length before others: a
 * script whose protocol needs it must share Lua that starts with this, and set `argi` to 0 at each call.
 */
export const ARGUMENT_CURSOR = `
local argi = 0
local function arg() argi = argi + 1; return ARGV[argi] end
local function listArg(readItem)
  local n, list = arg() + 0, {}
  for i = 1, n do list[i] = readItem() end
  return list
end
`

const scalar = <T>(toText: (value: T) => string, lua: (raw: string) => string): Arg<T> =>
  ({ write: (value, args) => { args.push(toText(value)) }, lua, single: true })

function finite (value: number): string {
  if (!Number.isFinite(value)) throw new RangeError(`A script argument must be a finite number, not ${value}`)
  return String(value)
}

/** A string, as is. */
export const text: Arg<string> = scalar((value) => value, (raw) => raw)

/** A boolean: '1' or '0'; a Lua boolean. */
export const flag: Arg<boolean> = scalar((value) => value ? '1' : '0', (raw) => `${raw} == '1'`)

/** A finite number; a Lua number (by arithmetic: tonumber parses its text twice). */
export const number: Arg<number> = scalar(finite, (raw) => `${raw} + 0`)

/** A finite number or nothing (''); a Lua number or nil. */
export const optionalNumber: Arg<number | undefined> =
  scalar((value) => value === undefined ? '' : finite(value), (raw) => `tonumber(${raw})`)

/** A finite number or nothing (''), kept a string in Lua: '' tells nothing from '0'. */
export const optionalNumberText: Arg<number | undefined> =
  scalar((value) => value === undefined ? '' : finite(value), (raw) => raw)

/**
 * Strings to the end of the arguments, read by the script's body: its local is the position in ARGV of the
 * first (`#ARGV + 1` when there is none), so that no script counts the arguments before it. Last of a protocol only.
 */
export const rest: Arg<readonly string[]> = { write: (values, args) => { args.push(...values) }, lua: undefined, single: false }

/** Values of one kind: their count, then each; a Lua list. */
export function list<T> (item: Arg<T>): Arg<readonly T[]> {
  if (!item.lua) throw new Error('A list needs items Lua can read')
  const read = item.lua('arg()')
  // A reader that is a call without arguments is passed as it is: no closure to build per call.
  const reader = /^\w+\(\)$/.test(read) ? read.slice(0, -2) : `function() return ${read} end`
  return {
    write: (values, args) => {
      args.push(String(values.length))
      for (const value of values) item.write(value, args)
    },
    lua: () => `listArg(${reader})`,
    single: false
  }
}

/** Arguments by name; an argument of any value type fits `Arg<never>`. */
export type ArgSpec = Record<string, Arg<never>>

/** The values an argument list takes, by name. */
export type ArgsOf<A extends ArgSpec> = { [N in keyof A]: A[N] extends Arg<infer T> ? T : never }

/** Values of several kinds, in this order; a Lua table of them by name. */
export function record<A extends ArgSpec> (fields: A): Arg<ArgsOf<A>> {
  const entries = Object.entries(fields)
  for (const [name, field] of entries) {
    if (!field.lua) throw new Error(`Field ${name} of a record needs Lua that reads it`)
  }
  return {
    write: (value, args) => {
      for (const [name, field] of entries) field.write(value[name] as never, args)
    },
    lua: () => `{ ${entries.map(([name, field]) => `${name} = ${field.lua!('arg()')}`).join(', ')} }`,
    single: false
  }
}

/** Keys that come in groups of the same names, as many groups as the call has, after the fixed keys. */
export interface KeyGroups<G extends string, K extends string> {
  name: G
  keys: readonly K[]
}

export interface ProtocolSpec<K extends string, A extends ArgSpec, R, G extends string, GK extends string> {
  keys: readonly K[]
  keyGroups?: KeyGroups<G, GK>
  args: A
  /** The script's reply, parsed: Redis' reply as node-redis gives it. */
  reply: (raw: unknown) => R
}

/** The keys of a call by name, and the groups' keys by group. */
export type KeysOf<K extends string, G extends string = never, GK extends string = never> =
  Record<K, string> & Record<G, ReadonlyArray<Record<GK, string>>>

export interface ScriptCallArgs {
  keys: string[]
  args: string[]
}

/** A script's protocol: what the TypeScript side calls it with and gets back, and the Lua side's locals. */
export interface ScriptProtocol<Keys, Args, Reply> {
  /** The call's KEYS and ARGV, in the order the Lua reads them. */
  encode: (keys: Keys, args: Args) => ScriptCallArgs
  decode: (raw: unknown) => Reply
  /** Lua declaring a local per key (a list of tables per key group) and per argument Lua reads. */
  readonly lua: string
  /** Whether the Lua reads arguments in turn (ARGUMENT_CURSOR) rather than by position. */
  readonly cursor: boolean
}

const LUA_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/

/** Declares a script's protocol: keys and arguments by name, in the order Redis receives them. */
export function protocol<const K extends string, A extends ArgSpec, R, const G extends string = never, const GK extends string = never> (
  spec: ProtocolSpec<K, A, R, G, GK>): ScriptProtocol<KeysOf<K, G, GK>, ArgsOf<A>, R> {
  const { keys, keyGroups, args, reply } = spec
  const argEntries = Object.entries(args)
  const names = [...keys, ...(keyGroups ? [keyGroups.name] : []), ...argEntries.map(([name]) => name)]
  for (const name of [...names, ...(keyGroups?.keys ?? [])]) {
    if (!LUA_NAME.test(name)) throw new Error(`Script protocol name "${name}" is not a Lua name`)
  }
  if (new Set(names).size !== names.length) throw new Error(`Script protocol names repeat: ${names.join(', ')}`)
  argEntries.forEach(([name, arg], index) => {
    if (!arg.lua && index !== argEntries.length - 1) throw new Error(`Argument ${name}, read by the script itself, must come last`)
  })
  const cursor = argEntries.some(([, arg]) => !arg.single && arg.lua)
  const lines: string[] = []
  if (keys.length > 0) lines.push(`local ${keys.join(', ')} = ${keys.map((_, index) => `KEYS[${index + 1}]`).join(', ')}`)
  if (keyGroups) {
    const size = keyGroups.keys.length
    const fields = keyGroups.keys.map((name, index) => `${name} = KEYS[${keys.length + index + 1 - size} + ${size} * i]`)
    lines.push(`local ${keyGroups.name} = {}`,
      `for i = 1, (#KEYS - ${keys.length}) / ${size} do ${keyGroups.name}[i] = { ${fields.join(', ')} } end`)
  }
  argEntries.forEach(([name, arg], index) => {
    const position = cursor ? 'argi + 1' : String(index + 1)
    lines.push(`local ${name} = ${arg.lua ? arg.lua(cursor ? 'arg()' : `ARGV[${position}]`) : position}`)
  })

  return {
    encode (keyValues, argValues) {
      const encodedKeys: string[] = []
      for (const name of keys) encodedKeys.push(keyValues[name])
      if (keyGroups) {
        for (const group of keyValues[keyGroups.name]) {
          for (const name of keyGroups.keys) encodedKeys.push(group[name])
        }
      }
      const encodedArgs: string[] = []
      for (const [name, arg] of argEntries) arg.write(argValues[name] as never, encodedArgs)
      return { keys: encodedKeys, args: encodedArgs }
    },
    decode: reply,
    lua: lines.length === 0 ? '' : lines.join('\n') + '\n',
    cursor
  }
}
