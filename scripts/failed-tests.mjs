// Names each failed test of a vitest JSON report, with its file and the first lines of its failure.
// Usage: node scripts/failed-tests.mjs <title> <report.json>
import { readFileSync } from 'node:fs'
import { relative } from 'node:path'
import process from 'node:process'

const MESSAGE_LINES = 6

const [title, reportPath] = process.argv.slice(2)
const report = JSON.parse(readFileSync(reportPath, 'utf8'))

for (const file of report.testResults ?? []) {
  const path = relative(process.cwd(), file.name)
  const failed = (file.assertionResults ?? []).filter((test) => test.status === 'failed')
  if (failed.length === 0 && file.status === 'failed') {
    say(`${title}: ${path}: ${firstLines(file.message ?? 'the file failed to run')}`)
  }
  for (const test of failed) {
    say(`${title}: ${path} > ${test.fullName}`)
    for (const message of test.failureMessages ?? []) say(indent(firstLines(message)))
  }
}

function say(line) {
  process.stdout.write(`${line}\n`)
}

function firstLines(text) {
  return text.split('\n').slice(0, MESSAGE_LINES).join('\n')
}

function indent(text) {
  return text.replace(/^/gm, '    ')
}
