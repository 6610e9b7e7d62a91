/**
 * Which operations of an OpenAPI description a client left out. Each log lists the requests one client
 * sent, "METHOD /path" a line; a request counts for the operation whose path template its path matches
 * (`{pointer}` takes one or more segments, any other parameter one). Exits 1 when an operation is missing.
 * Usage: tsx coverage.ts <openapi.json> <name>=<log>...
 */
import { readFileSync } from 'node:fs'

interface Description { paths: Record<string, Record<string, { operationId: string }>> }

const [descriptionPath, ...logs] = process.argv.slice(2)
const description = JSON.parse(readFileSync(descriptionPath!, 'utf8')) as Description

const templates = Object.entries(description.paths).map(([template, item]) => ({
  parameters: (template.match(/\{/g) ?? []).length,
  pattern: new RegExp('^' + template.split(/(\{[^}]+\})/).map((part) =>
    part === '{pointer}' ? '.+' : part.startsWith('{') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('') + '$'),
  operations: Object.fromEntries(Object.entries(item).map(([method, operation]) => [method.toUpperCase(), operation.operationId]))
}))
const operationIds = templates.flatMap((template) => Object.values(template.operations))

let missing = 0
for (const log of logs) {
  const [name, file] = log.split('=') as [string, string]
  const called = new Set<string>()
  for (const line of readFileSync(file, 'utf8').split('\n').filter(Boolean)) {
    const [method, path] = line.split(' ') as [string, string]
    const matching = templates.filter((template) => template.pattern.test(path) && method in template.operations)
      .sort((a, b) => a.parameters - b.parameters)
    if (matching[0]) called.add(matching[0].operations[method]!)
  }
  const left = operationIds.filter((id) => !called.has(id))
  console.log(`${name}: ${called.size} of ${operationIds.length} operations called` + (left.length ? `; not called: ${left.join(', ')}` : ''))
  missing += left.length
}
process.exit(missing === 0 ? 0 : 1)
