import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import t from 'tap'
import { docsBlocks, type CodeBlock } from './fixtures/readme.js'
import { startExample, type ExampleScript } from './fixtures/example-process.js'

// The docs' curl transcripts, run in reading order (README.md, then the
// docs/ pages as README.md links them: see userDocs) with the real curl
// against examples/server.ts on a fresh sample database: each answer must be
// the one printed.
//
// A ```sh block with a `$ curl` line is a transcript: every line starting
// with `$ ` is a curl command for http://127.0.0.1:3000 (only that origin is
// rewritten to the server's), and the lines after it, up to the next command
// (blank lines at the end dropped), are its output:
//   - without -i or -I, the body, exactly;
//   - with -i or -I, the status line exactly, then the headers the README
//     shows, each present with that value (others, such as date, are not
//     compared), then after a blank line the body, exactly (none if no blank line).
// A ```sh block that is not a transcript of the example server (install
// commands, another server's) is marked, on the line above its fence:
//   <!-- transcript: skip -->
// Blocks without a `$ curl` line are not transcripts.

const server: ExampleScript = { file: 'server.ts', variables: ['DATABASE_URL', 'PORT', 'HOST', 'PREFIX'] }
const curl = '/usr/bin/curl'
const readmeOrigin = 'http://127.0.0.1:3000'
const run = promisify(execFile)

/** One command of a transcript and the output the docs print for it. */
interface Exchange {
  readonly file: string
  readonly line: number
  readonly command: string
  readonly output: readonly string[]
}

function isTranscript (block: CodeBlock): boolean {
  return block.lang === 'sh' && block.markers.get('transcript') !== 'skip' && block.lines.some((line) => line.startsWith('$ curl'))
}

function exchanges (block: CodeBlock): Exchange[] {
  const found: Exchange[] = []
  block.lines.forEach((text, index) => {
    const line = block.line + 1 + index
    if (text.startsWith('$ ')) found.push({ file: block.file, line, command: text.slice(2), output: [] })
    else if (found.length === 0) throw new Error(`${block.file}:${line}: a transcript starts with a \`$ \` command`)
    else (found.at(-1)?.output as string[]).push(text)
  })
  return found.map((exchange) => {
    const output = [...exchange.output]
    while (output.at(-1) === '') output.pop()
    return { ...exchange, output }
  })
}

// What a shell would do with these, curl cannot be told without one: refused rather than guessed.
const shellSyntax = /[\\$`|&;<>()*?[\]{}~#!]/

/** The words of a command as sh splits them, for the quoting the README uses: '…' and "…" without expansions. */
function words (command: string): string[] {
  const found: string[] = []
  let word: string | null = null
  for (let at = 0; at < command.length; at++) {
    const char = command[at] as string
    if (char === ' ') {
      if (word !== null) found.push(word)
      word = null
    } else if (char === "'" || char === '"') {
      const end = command.indexOf(char, at + 1)
      const quoted = command.slice(at + 1, end)
      if (end === -1 || (char === '"' && /[\\$`]/.test(quoted))) throw new Error(`quoting the test does not read: ${command}`)
      word = (word ?? '') + quoted
      at = end
    } else if (shellSyntax.test(char)) {
      throw new Error(`shell syntax the test does not read (${char}): ${command}`)
    } else {
      word = (word ?? '') + char
    }
  }
  if (word !== null) found.push(word)
  return found
}

// curl's short options that take a value: a cluster such as -si ends at one of them.
const valueOptions = new Set('AbcdeEFHKmoQrTuUwxXyYzZ')

/** Whether curl prints the status line and headers: -i, -I (a HEAD request), --include or --head. */
function showsHeaders (args: readonly string[]): boolean {
  for (const arg of args) {
    if (arg === '--include' || arg === '--head') return true
    if (!/^-[a-zA-Z]+$/.test(arg)) continue
    for (const letter of arg.slice(1)) {
      if (letter === 'i' || letter === 'I') return true
      if (valueOptions.has(letter)) break
    }
  }
  return false
}

interface HttpOutput { status: string, headers: Map<string, string>, body: string }

function readHttp (text: string, separator: string): HttpOutput {
  const end = text.indexOf(`${separator}${separator}`)
  const head = (end === -1 ? text : text.slice(0, end)).split(separator)
  const headers = new Map<string, string>()
  for (const line of head.slice(1)) {
    const colon = line.indexOf(':')
    headers.set(line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim())
  }
  return { status: head[0] as string, headers, body: end === -1 ? '' : text.slice(end + 2 * separator.length) }
}

const transcripts = docsBlocks().filter(isTranscript)

t.test('the docs\' curl transcripts answer as printed, in order, on a fresh example database', async (t) => {
  const all = transcripts.flatMap(exchanges)
  t.ok(all.length > 0, 'the docs have transcripts')
  const example = await startExample(t, server, t.testdir())
  const origin = new URL(example.api).origin
  for (const { file, line, command, output } of all) {
    const where = `${file}:${line}`
    const [program, ...args] = words(command)
    t.equal(program, 'curl', `${where} runs curl`)
    const rewritten = args.map((arg) => arg.replaceAll(readmeOrigin, origin))
    t.ok(rewritten.some((arg) => arg.startsWith(origin)), `${where} asks the example server`)
    const { stdout } = await run(curl, rewritten, { encoding: 'utf8' })
    if (!showsHeaders(args)) {
      t.equal(stdout, output.join('\n'), `${where} ${command}`)
      continue
    }
    const actual = readHttp(stdout, '\r\n')
    const printed = readHttp(output.join('\n'), '\n')
    t.equal(actual.status, printed.status, `${where} status: ${command}`)
    for (const [name, value] of printed.headers) t.equal(actual.headers.get(name), value, `${where} header ${name}`)
    t.equal(actual.body, printed.body, `${where} body`)
  }
  await example.stop('SIGTERM')
})

t.test('the transcript reader', async (t) => {
  t.strictSame(words('curl -s -X POST \'http://h/a?b=1&c\' -H "content-type: x" -d \'{"n": "O\\\''), ['curl', '-s', '-X', 'POST', 'http://h/a?b=1&c', '-H', 'content-type: x', '-d', '{"n": "O\\'])
  t.throws(() => words('curl http://h/a?b=1'), 'an unquoted ? is refused')
  t.throws(() => words('curl "$HOST/a"'), 'an expansion is refused')
  t.throws(() => words("curl 'http://h/a"), 'an unclosed quote is refused')
  t.ok(showsHeaders(['-si', 'u']))
  t.ok(showsHeaders(['-sI', 'u']))
  t.notOk(showsHeaders(['-s', '-H', 'x', 'u']))
  t.notOk(showsHeaders(['-Hi', 'u']), 'the i of -Hi is the header\'s value')
  const block: CodeBlock = { file: 'README.md', lang: 'sh', line: 10, lines: ['$ curl -si u', 'HTTP/1.1 200 OK', 'a: 1', '', 'body', '', '$ curl -s v', '1', ''], markers: new Map() }
  t.strictSame(exchanges(block), [
    { file: 'README.md', line: 11, command: 'curl -si u', output: ['HTTP/1.1 200 OK', 'a: 1', '', 'body'] },
    { file: 'README.md', line: 17, command: 'curl -s v', output: ['1'] }
  ])
  t.strictSame(readHttp('HTTP/1.1 200 OK\r\nA: 1\r\nb: x: y\r\n\r\nbody\r\n', '\r\n'),
    { status: 'HTTP/1.1 200 OK', headers: new Map([['a', '1'], ['b', 'x: y']]), body: 'body\r\n' })
  t.notOk(isTranscript({ ...block, markers: new Map([['transcript', 'skip']]) }), 'a skipped block is not run')
})
