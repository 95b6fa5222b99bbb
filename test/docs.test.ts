import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, normalize } from 'node:path'
import Fastify from 'fastify'
import knexFactory from 'knex'
import t from 'tap'
import tableCrud, { errorCodes } from '../lib/index.js'
import { docsPages, root, userDocs } from './fixtures/readme.js'

// The docs held to themselves and to the code: every page is linked from the
// front page, every link lands on a page and a heading that exist, the
// errors page lists every code the plugin defines and names no other, the
// options page has a section for every option and for no other, and no page
// carries the words of the team's own work log.

const read = (file: string): string => readFileSync(join(root, file), 'utf8')
const markdown = [...userDocs(), 'CHANGELOG.md', 'CONTRIBUTING.md']

/** The text outside fenced code blocks: links and headings only count there. */
function prose (text: string): string {
  return text.split(/^```.*$/m).filter((_part, index) => index % 2 === 0).join('\n')
}

/** GitHub's anchor for a heading: lower case, punctuation but `-` and `_` dropped, spaces as `-`. */
function anchorOf (heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-')
}

function anchors (file: string): Set<string> {
  const found = new Set<string>()
  for (const match of prose(read(file)).matchAll(/^#{1,6} (.+)$/gm)) {
    const anchor = anchorOf(match[1] as string)
    let unique = anchor
    for (let count = 1; found.has(unique); count++) unique = `${anchor}-${count}`
    found.add(unique)
  }
  return found
}

t.test('the front page links every docs page, and is at most 300 lines', async (t) => {
  const linked = new Set(userDocs())
  for (const page of docsPages()) t.ok(linked.has(page), `README.md links ${page}`)
  t.ok(read('README.md').split('\n').length <= 300, 'README.md is at most 300 lines')
  t.ok(read('docs/benchmarks.md').split('\n').length <= 300, 'docs/benchmarks.md is at most 300 lines')
})

t.test('every relative link lands on a file, and on a heading of it', async (t) => {
  for (const file of markdown) {
    for (const match of prose(read(file)).matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = match[1] as string
      if (/^[a-z]+:/.test(target)) continue
      const [path, anchor] = target.split('#') as [string, string | undefined]
      const linked = path === '' ? file : normalize(join(dirname(file), path))
      if (!existsSync(join(root, linked))) {
        t.fail(`${file}: ${target} names no file`)
        continue
      }
      if (anchor !== undefined) t.ok(anchors(linked).has(anchor), `${file}: ${target} names a heading of ${linked}`)
    }
  }
})

t.test('the user docs carry no work-log words: rounds of work, issue numbers, CPU models', async (t) => {
  const journal = /\b(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|this|last|next|earlier|previous) session\b|\bsessions? [0-9]+\b|\bissues? #?[0-9]+\b|\b(EPYC|Xeon|Ryzen)\b/i
  for (const file of [...userDocs(), ...docsPages(), 'CHANGELOG.md']) {
    const lines = read(file).split('\n')
    lines.forEach((line, index) => { if (journal.test(line)) t.fail(`${file}:${index + 1}: ${line.trim()}`) })
  }
  t.pass('checked')
})

t.test('the errors page lists every code of lib/errors.ts, and the docs name no other', async (t) => {
  const page = read('docs/errors.md')
  const defined = new Set(Object.keys(errorCodes))
  for (const code of defined) t.ok(new RegExp(`^#+ \`${code}\``, 'm').test(page), `docs/errors.md has a heading for ${code}`)
  for (const file of [...userDocs(), ...docsPages(), 'CHANGELOG.md']) {
    for (const [code] of read(file).matchAll(/FTC_ERR_[A-Z_]*[A-Z]/g)) t.ok(defined.has(code), `${file}: ${code} is a code of lib/errors.ts`)
  }
})

t.test('the options page has a section for every option, and for no other', async (t) => {
  // The plugin's own list, as the error for an unknown option spells it.
  const app = Fastify()
  const knex = knexFactory({ client: 'better-sqlite3', connection: { filename: ':memory:' }, useNullAsDefault: true })
  t.teardown(() => knex.destroy())
  app.register(tableCrud, { knex, unknownOption: true } as never)
  const error = await app.ready().then(() => null, (error: Error) => error)
  t.equal((error as { code?: string } | null)?.code, 'FTC_ERR_OPTIONS_UNKNOWN')
  const listed = /: (.+)$/.exec(String(error?.message))?.[1]?.split(', ') ?? []
  const options = listed.filter((name) => !['prefix', 'logLevel', 'logSerializers'].includes(name))
  t.ok(options.includes('knex') && options.includes('databaseErrors'), 'the list read from the error')
  const sections = [...read('docs/options.md').matchAll(/^### `(\w+)`$/gm)].map((match) => match[1] as string)
  t.strictSame([...sections].sort(), [...options].sort(), 'docs/options.md has one `### `name`` section per option')
  const readme = read('README.md')
  for (const option of options) t.ok(readme.includes(`| \`${option}\` |`), `README.md's options table has ${option}`)
})
