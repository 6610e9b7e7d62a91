/** Member names that must each be reachable exactly, whatever they contain. */
export const trickyNames = [
  'plain', '', 'a b', 'trailing ', 'x.y', 'a..b', '[0]', '["a"]', "it's", 'say "hi"', 'back\\slash', '\\"', '"]',
  '$', '$.a', '*', '...', '@', '?(@.a)', 'a/b', 'm~n', '~0', '~1', '%41', '%', '+', '#', '?q=1', 'été',
  '😀', '中文', '\u2028', 'tab\tstop', 'new\nline', 'nul\u0000', '\u007f', '0', '01', '-', '-1', '1e2',
  '__proto__', 'constructor', 'null', 'true', '{}', 'a\'"\\b', 'it\'s "both"', "'", '"', '\\'
]

/** RFC 6901 escaping, then percent-encoding of everything a URL segment cannot carry. */
export const segment = (name: string) => encodeURIComponent(name.replaceAll('~', '~0').replaceAll('/', '~1'))

/** RFC 6901 escaping alone, for pointers in a body. */
export const token = (name: string) => name.replaceAll('~', '~0').replaceAll('/', '~1')
