/*
 * Redis Cluster's hash slots, computed here as Redis computes them: so that every key the service derives
 * from a document (its version record, its scratch keys) lands in the document's own slot, where one
 * script may reach them all, whatever braces the document's key holds.
 */

export const SLOTS = 16384

const CRC16_TABLE = (() => {
  const table = new Uint16Array(256)
  for (let byte = 0; byte < 256; byte++) {
    let crc = byte << 8
    for (let bit = 0; bit < 8; bit++) crc = (crc & 0x8000) !== 0 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff
    table[byte] = crc
  }
  return table
})()

function crc16 (bytes: Uint8Array, from: number, to: number): number {
  let crc = 0
  for (let index = from; index < to; index++) crc = ((crc << 8) & 0xffff) ^ CRC16_TABLE[((crc >> 8) ^ bytes[index]!) & 0xff]!
  return crc
}

const OPEN = 0x7b
const CLOSE = 0x7d

const BEYOND_ASCII = /[\u0080-\u{10FFFF}]/u

/** The slot of a key: CRC16 (XMODEM) of its hash tag (the bytes between its first `{` and the next `}`, when any), else of the whole key. */
export function slotOf (key: string): number {
  if (BEYOND_ASCII.test(key)) return slotOfBytes(Buffer.from(key, 'utf8'))
  // ASCII: each character is its byte, and no Buffer is needed.
  let [from, to] = [0, key.length]
  const open = key.indexOf('{')
  if (open !== -1) {
    const close = key.indexOf('}', open + 1)
    if (close > open + 1) [from, to] = [open + 1, close]
  }
  let crc = 0
  for (let index = from; index < to; index++) crc = ((crc << 8) & 0xffff) ^ CRC16_TABLE[((crc >> 8) ^ key.charCodeAt(index)) & 0xff]!
  return crc % SLOTS
}

function slotOfBytes (bytes: Buffer): number {
  const open = bytes.indexOf(OPEN)
  if (open !== -1) {
    const close = bytes.indexOf(CLOSE, open + 1)
    if (close > open + 1) return crc16(bytes, open + 1, close) % SLOTS
  }
  return crc16(bytes, 0, bytes.length) % SLOTS
}

let tags: string[] | undefined

/** A short tag without braces whose slot is `slot`: `{tag}` in a key puts the key there. The table is built once (about 160k CRCs). */
export function tagOfSlot (slot: number): string {
  if (tags === undefined) {
    const found: string[] = new Array<string>(SLOTS)
    let missing = SLOTS
    for (let candidate = 0; missing > 0; candidate++) {
      const tag = candidate.toString(36)
      const bytes = Buffer.from(tag, 'latin1')
      const at = crc16(bytes, 0, bytes.length) % SLOTS
      if (found[at] === undefined) {
        found[at] = tag
        missing--
      }
    }
    tags = found
  }
  return tags[slot]!
}

/** A key for data that belongs to `key`, in its slot: `prefix{tag}rest`. */
export function keyBeside (key: string, prefix: string, rest: string): string {
  return `${prefix}{${tagOfSlot(slotOf(key))}}${rest}`
}

/**
 * Keys' indices grouped by hash slot, in the order each slot is first met; on one Redis (`bySlot`
 * false), all in one group. A command over many keys (MGET, JSON.MGET) runs once per group on a cluster.
 */
export function groupsBySlot (keys: readonly string[], bySlot: boolean): number[][] {
  if (!bySlot) return keys.length === 0 ? [] : [keys.map((_, index) => index)]
  const groups = new Map<number, number[]>()
  keys.forEach((key, index) => {
    const slot = slotOf(key)
    const group = groups.get(slot)
    if (group) group.push(index)
    else groups.set(slot, [index])
  })
  return [...groups.values()]
}
