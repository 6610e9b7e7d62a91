/** A page of the console: its element, and what stops its work (streams, polling) when the person leaves it. */
export interface View {
  element: HTMLElement
  stop (): void
}
