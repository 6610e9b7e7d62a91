import { parseTree, type Node } from 'jsonc-parser'

/**
 * Pieces of a JSON body as the client wrote them. Values inside the service's own request bodies
 * (patch values, pushed elements, batch documents) are forwarded as their exact source text, so that
 * no number passes through a JavaScript double on its way to RedisJSON.
 */
export class RawJson {
  readonly root: Node

  /** `text` must already be valid JSON. */
  constructor (readonly text: string) {
    const root = parseTree(text)
    if (!root) throw new Error('RawJson needs valid JSON')
    this.root = root
  }

  /** The source text of a node. */
  slice (node: Node): string {
    return this.text.slice(node.offset, node.offset + node.length)
  }

  /** The value node of an object's member; the last one when a name repeats, as JSON.parse reads it. */
  member (node: Node | undefined, name: string): Node | undefined {
    let found: Node | undefined
    for (const property of node?.type === 'object' ? node.children ?? [] : []) {
      if (property.children?.[0]?.value === name) found = property.children[1]
    }
    return found
  }

  /** The source text of an object's member, or undefined when it has none. */
  memberText (node: Node | undefined, name: string): string | undefined {
    const value = this.member(node, name)
    return value ? this.slice(value) : undefined
  }

  /** An array's element nodes (none for anything else). */
  items (node: Node | undefined): Node[] {
    return node?.type === 'array' ? node.children ?? [] : []
  }
}
