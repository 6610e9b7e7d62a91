/** A document's URL path: the key, then the pointer's segments, each percent-encoded (RFC 6901 escapes kept). */
export function documentPath (key: string, pointer = ''): string {
  if (pointer !== '' && !pointer.startsWith('/')) throw new TypeError(`Not a JSON Pointer (RFC 6901): ${JSON.stringify(pointer)}`)
  const segments = pointer === '' ? [] : pointer.slice(1).split('/')
  const base = `/docs/${encodeURIComponent(key)}`
  // URL parsers drop `.` and `..` segments (even percent-encoded): such a pointer goes in `?pointer=`.
  if (segments.some((segment) => segment === '.' || segment === '..')) return `${base}?pointer=${encodeURIComponent(pointer)}`
  return base + segments.map((segment) => '/' + encodeURIComponent(segment)).join('')
}

/** A key prefix's URL path (its listing, and its stream). */
export function prefixPath (prefix: string): string {
  return `/docs?prefix=${encodeURIComponent(prefix)}`
}

/** A collection's URL path. */
export function collectionPath (collection: string, what: 'query' | 'aggregate'): string {
  return `/collections/${encodeURIComponent(collection)}/${what}`
}
