/// <reference lib="dom" />

export type Child = Node | string | number | null | undefined | false
type Listener = (event: Event) => unknown
export type Props = Record<string, string | number | boolean | Listener | undefined>

/**
 * An element with its attributes, listeners (`onclick`...) and children. Text is always set as text, never
 * parsed as HTML: what documents and the service hold cannot become markup.
 */
export function h<K extends keyof HTMLElementTagNameMap> (tag: K, props: Props = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag)
  for (const [name, value] of Object.entries(props)) {
    if (value === undefined || value === false) continue
    if (typeof value === 'function') element.addEventListener(name.slice(2), value)
    else if (name === 'value') (element as HTMLInputElement).value = String(value)
    else element.setAttribute(name === 'className' ? 'class' : name, value === true ? '' : String(value))
  }
  element.append(...nodes(children))
  return element
}

/** Children as nodes, leaving out the empty ones. */
export function nodes (children: Child[]): Array<Node | string> {
  return children.filter((child) => child !== null && child !== undefined && child !== false)
    .map((child) => typeof child === 'number' ? String(child) : child as Node | string)
}

/** A label holding its field's caption and the field, so that the field is named for assistive technology. */
export function field (caption: string, input: HTMLElement, hint?: string): HTMLLabelElement {
  return h('label', { className: 'field' }, h('span', {}, caption), input, hint ? h('small', {}, hint) : null)
}

/** A button that runs `action`; it is disabled while the action runs. */
export function button (text: string, action: () => unknown, props: Props = {}): HTMLButtonElement {
  const element: HTMLButtonElement = h('button', {
    type: 'button',
    ...props,
    onclick: async () => {
      element.disabled = true
      try { await action() } finally { element.disabled = false }
    }
  }, text)
  return element
}

/** A form whose submission runs `action` instead of navigating (Enter in any of its fields submits it). */
export function form (action: () => unknown, props: Props, ...children: Child[]): HTMLFormElement {
  const element: HTMLFormElement = h('form', {
    ...props,
    onsubmit: async (event: Event) => {
      event.preventDefault()
      const submit = element.querySelector<HTMLButtonElement>('button[type=submit]')
      if (submit) submit.disabled = true
      try { await action() } finally { if (submit) submit.disabled = false }
    }
  }, ...children)
  return element
}
