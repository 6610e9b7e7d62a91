export type Parsed = { value: unknown } | { error: string }

/** The text as JSON, or what is wrong with it and where (line and column, when the engine gives only a position). */
export function parseJson (text: string): Parsed {
  try {
    return { value: JSON.parse(text) }
  } catch (error) {
    const message = (error as Error).message
    const position = /at position (\d+)/.exec(message)?.[1]
    if (position === undefined || /line \d+/.test(message)) return { error: message }
    const before = text.slice(0, Number(position)).split('\n')
    return { error: `${message} (line ${before.length} column ${before.at(-1)!.length + 1})` }
  }
}
