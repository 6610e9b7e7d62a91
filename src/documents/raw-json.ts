/**
 * Pieces of a JSON body as the client wrote them. Values inside the service's own request bodies
 * (patch values, pushed elements, batch documents) are forwarded as their exact source text, so that
 * no number passes through a JavaScript double on its way to RedisJSON. Only the spans asked for are
 * scanned, and nothing is built but the nodes asked for: a megabyte body costs a few milliseconds, where
 * a full syntax tree of it cost 150.
 */

/** Where a value is in the text, and whether it is an object, an array or a scalar. */
export interface RawNode {
  offset: number
  length: number
  type: 'object' | 'array' | 'scalar'
}

/** A member of an object: its name, decoded, and its value. */
export interface RawMember {
  name: string
  value: RawNode
}


export class RawJson {
  readonly root: RawNode

  /** `text` must already be valid JSON. */
  constructor (readonly text: string) {
    this.root = this.#node(this.#skipSpace(0))
  }

  /** The source text of a node. */
  slice (node: RawNode): string {
    return this.text.slice(node.offset, node.offset + node.length)
  }

  /** The value node of an object's member, or undefined. */
  member (node: RawNode | undefined, name: string): RawNode | undefined {
    for (const member of this.members(node)) if (member.name === name) return member.value
    return undefined
  }

  /** The source text of an object's member, or undefined when it has none. */
  memberText (node: RawNode | undefined, name: string): string | undefined {
    const value = this.member(node, name)
    return value ? this.slice(value) : undefined
  }

  /** An object's members in order (none for anything else). */
  members (node: RawNode | undefined): RawMember[] {
    const members: RawMember[] = []
    if (node?.type !== 'object') return members
    this.#eachChild(node, (at) => {
      const nameEnd = stringEnd(this.text, at + 1)
      const quoted = this.text.slice(at, nameEnd)
      const name = quoted.includes('\\') ? JSON.parse(quoted) as string : quoted.slice(1, -1)
      const value = this.#node(this.#skipSpace(this.#skipSpace(nameEnd) + 1))
      members.push({ name, value })
      return value.offset + value.length
    })
    return members
  }

  /** An array's element nodes (none for anything else). */
  items (node: RawNode | undefined): RawNode[] {
    const items: RawNode[] = []
    if (node?.type !== 'array') return items
    this.#eachChild(node, (at) => {
      const item = this.#node(at)
      items.push(item)
      return item.offset + item.length
    })
    return items
  }

  /** Calls visit at the start of each child of a container; visit answers where that child ends. */
  #eachChild (node: RawNode, visit: (at: number) => number): void {
    const close = node.offset + node.length - 1
    let at = this.#skipSpace(node.offset + 1)
    while (at < close) {
      at = this.#skipSpace(visit(at))
      if (this.text.charCodeAt(at) === 44) at = this.#skipSpace(at + 1)
    }
  }

  #node (at: number): RawNode {
    const code = this.text.charCodeAt(at)
    const type = code === 123 ? 'object' : code === 91 ? 'array' : 'scalar'
    return { offset: at, length: valueEnd(this.text, at) - at, type }
  }

  #skipSpace (at: number): number {
    let index = at
    while (isSpace(this.text.charCodeAt(index))) index++
    return index
  }
}

/** The position after the JSON value that starts at `at`. */
function valueEnd (text: string, at: number): number {
  const code = text.charCodeAt(at)
  if (code === 34) return stringEnd(text, at + 1)
  if (code !== 123 && code !== 91) {
    let index = at
    while (index < text.length && !endsScalar(text.charCodeAt(index))) index++
    return index
  }
  let depth = 0
  for (let index = at; index < text.length; index++) {
    const char = text.charCodeAt(index)
    if (char === 34) index = stringEnd(text, index + 1) - 1
    else if (char === 123 || char === 91) depth++
    else if ((char === 125 || char === 93) && --depth === 0) return index + 1
  }
  return text.length
}

/** The position after the closing quote of the string whose content starts at `from`. */
export function stringEnd (text: string, from: number): number {
  for (let at = from; ; at++) {
    at = text.indexOf('"', at)
    if (at === -1) return text.length
    let backslashes = 0
    while (text.charCodeAt(at - 1 - backslashes) === 92) backslashes++
    if (backslashes % 2 === 0) return at + 1
  }
}

function isSpace (code: number): boolean {
  return code === 32 || code === 10 || code === 13 || code === 9
}

function endsScalar (code: number): boolean {
  return code === 44 || code === 93 || code === 125 || isSpace(code)
}
