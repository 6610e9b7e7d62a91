/**
 * What a text/event-stream says, as the HTML standard's parser reads it: an event (`data` set), or only a
 * new position (`data` undefined: a lone `id:` line, which moves where a reconnection resumes from).
 */
export interface SseMessage {
  event: string
  data: string | undefined
  /** The last event id as it stands after this message (ids carry over to later events). */
  id: string
}

/**
 * An incremental parser of text/event-stream (HTML Living Standard, 9.2.6): BOM, CRLF/LF/CR line ends,
 * comments, `event:`, multi-line `data:`, `id:` (none holding NUL), `retry:`. Feed it decoded text.
 */
export class SseParser {
  /** The last event id buffer: where a reconnection resumes from. */
  lastEventId = ''
  /** The reconnection time the stream asked for, in ms. */
  retry: number | undefined
  #pending = ''
  #started = false
  #sawCr = false
  #event = ''
  #data: string[] = []
  #position = false

  /** Parses `text` (which may end mid-line) and returns the messages it completed. */
  feed (text: string): SseMessage[] {
    if (!this.#started && text !== '') {
      this.#started = true
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1)
    }
    // A CR ending the last chunk ended its line: an LF opening this one belongs to that line end.
    if (this.#sawCr && text.startsWith('\n')) text = text.slice(1)
    this.#sawCr = text.endsWith('\r')
    const messages: SseMessage[] = []
    const lines = (this.#pending + text).split(/\r\n|\r|\n/)
    this.#pending = lines.pop()!
    for (const line of lines) this.#line(line, messages)
    return messages
  }

  #line (line: string, messages: SseMessage[]): void {
    if (line === '') {
      this.#dispatch(messages)
      return
    }
    if (line.startsWith(':')) return
    const colon = line.indexOf(':')
    const field = colon === -1 ? line : line.slice(0, colon)
    let value = colon === -1 ? '' : line.slice(colon + 1)
    if (value.startsWith(' ')) value = value.slice(1)
    if (field === 'event') this.#event = value
    else if (field === 'data') this.#data.push(value)
    else if (field === 'retry' && /^[0-9]+$/.test(value)) this.retry = Number(value)
    else if (field === 'id' && !value.includes('\0')) {
      this.lastEventId = value
      this.#position = true
    }
  }

  #dispatch (messages: SseMessage[]): void {
    const data = this.#data.length === 0 ? undefined : this.#data.join('\n')
    if (data !== undefined || this.#position) messages.push({ event: this.#event || 'message', data, id: this.lastEventId })
    this.#event = ''
    this.#data = []
    this.#position = false
  }
}
