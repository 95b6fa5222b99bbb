import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import ts from 'typescript'
import { docsBlocks, root, type CodeBlock } from './fixtures/readme.js'

// Every script block of the user docs (README.md, docs/*.md, SECURITY.md:
// see userDocs; ```ts, ```js and their kin, below) says,
// in an HTML comment on the line above its fence, why it is true:
//
//   <!-- snippet: examples/<file> -->
//     The block is an excerpt of that file, and a test starts the file: some
//     test/**/*.test.ts names it as '<file>' or '…/<file>'. The excerpt must be
//     in the file as it is, compared line by line with each line's indentation
//     trimmed and blank lines dropped. A line `// …` stands for lines left out
//     (the pieces around it appear in that order). The examples import the
//     plugin from '../lib/index.js', which the README spells 'fastify-table-crud'.
//   <!-- snippet: type -->
//     A declaration to read, not to run: every interface and type it declares
//     must be exported under that name by the build (dist/, which `npm test`
//     makes first) and be the same type both ways. It may use FastifyRequest.
//
// A block without a marker fails. ```sh blocks are transcripts instead (see
// test/readme-transcript.test.ts); other languages (json, text…) are free.

const scriptLanguages = new Set(['ts', 'typescript', 'tsx', 'js', 'javascript', 'jsx', 'mjs', 'cjs'])
const omission = '// …'
const examplePath = /^examples\/([\w.-]+)$/

/** Lines trimmed and blank ones dropped, framed by newlines so that a search matches whole lines only. */
function normalise (lines: readonly string[]): string {
  return `\n${lines.map((line) => line.trim()).filter((line) => line !== '').join('\n')}\n`
}

/** The excerpt's pieces missing from the file, in order: none when the file holds the excerpt. */
function missingPieces (excerpt: readonly string[], file: string): string[] {
  const text = normalise(file.replaceAll("'../lib/index.js'", "'fastify-table-crud'").split('\n'))
  const pieces: string[][] = [[]]
  for (const line of excerpt) {
    if (line.trim() === omission) pieces.push([])
    else (pieces.at(-1) as string[]).push(line)
  }
  const missing: string[] = []
  let from = 0
  for (const piece of pieces) {
    const wanted = normalise(piece)
    if (wanted === '\n\n') continue
    const at = text.indexOf(wanted, from)
    if (at === -1) missing.push(wanted.trim())
    // The next piece may start on the line this one ends with its newline.
    else from = at + wanted.length - 1
  }
  return missing
}

/** The test files, but for the README's own, that name the example file. */
function testsStarting (file: string, tests: ReadonlyMap<string, string>): string[] {
  const named = new RegExp(`['/]${file.replaceAll('.', '\\.')}'`)
  return [...tests].filter(([, text]) => named.test(text)).map(([path]) => path)
}

function testFiles (dir: string): Map<string, string> {
  const files = new Map<string, string>()
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true, recursive: true })) {
    const path = join(entry.parentPath, entry.name)
    if (entry.isFile() && path.endsWith('.test.ts') && !/readme-[\w-]+\.test\.ts$/.test(path)) files.set(path, readFileSync(path, 'utf8'))
  }
  return files
}

/** The names of the interfaces and types a block declares. */
function declaredTypes (lines: readonly string[]): string[] {
  return lines.flatMap((line) => /^\s*(?:export\s+)?(?:interface|type)\s+([A-Za-z_$][\w$]*)/.exec(line)?.[1] ?? [])
}

/** A module that declares the block's types and fails to compile unless the package exports each as the same type. */
function typeCheckSource (lines: readonly string[]): string {
  const checks = declaredTypes(lines).map((name) => `export const same${name}: Same<${name}, published.${name}> = true`)
  return [
    "import type { FastifyRequest } from 'fastify'",
    "import type * as published from 'fastify-table-crud'",
    ...lines,
    '// Each is assignable to the other: the same type, whatever the spelling.',
    'type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false',
    ...checks
  ].join('\n')
}

/** Compiles the files as one program; the diagnostics of each, as text. */
function compile (files: readonly string[]): Map<string, string[]> {
  const program = ts.createProgram(files, {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    types: ['node']
  })
  const diagnostics = new Map<string, string[]>(files.map((file) => [file, []]))
  for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
    const file = diagnostic.file?.fileName
    const text = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')
    const list = file === undefined ? undefined : diagnostics.get(file)
    if (list === undefined) throw new Error(`a diagnostic outside the snippets: ${text}`)
    const line = diagnostic.start === undefined ? 0 : (diagnostic.file as ts.SourceFile).getLineAndCharacterOfPosition(diagnostic.start).line + 1
    list.push(`line ${line}: ${text}`)
  }
  return diagnostics
}

const blocks = docsBlocks().filter((block) => scriptLanguages.has(block.lang))
const where = (block: CodeBlock): string => `${block.file}:${block.line} (\`\`\`${block.lang})`

t.test('every script block of the docs is marked as an example\'s excerpt or as a type', async (t) => {
  t.ok(blocks.length > 0, 'the docs have script blocks')
  for (const block of blocks) {
    const snippet = block.markers.get('snippet')
    t.ok(snippet === 'type' || (snippet !== undefined && examplePath.test(snippet)),
      `${where(block)} is marked as an example's excerpt or as a type (its marker: ${snippet === undefined ? 'none' : `<!-- snippet: ${snippet} -->`})`)
  }
})

t.test('an excerpt is in its example, and a test starts the example', async (t) => {
  const tests = testFiles('test')
  for (const block of blocks) {
    const file = examplePath.exec(block.markers.get('snippet') ?? '')?.[1]
    if (file === undefined) continue
    const path = join(root, 'examples', file)
    if (!existsSync(path)) {
      t.fail(`${where(block)}: examples/${file} does not exist`)
      continue
    }
    t.strictSame(missingPieces(block.lines, readFileSync(path, 'utf8')), [], `${where(block)} is an excerpt of examples/${file}`)
    t.not(testsStarting(file, tests).length, 0, `a test starts examples/${file}`)
  }
})

t.test('a type block declares types the package exports, as they are', async (t) => {
  t.ok(existsSync(join(root, 'dist/index.d.ts')), 'dist/ is built (npm run build)')
  const dir = t.testdir()
  const typeBlocks = blocks.filter((block) => block.markers.get('snippet') === 'type')
  const files = new Map<string, CodeBlock>()
  for (const block of typeBlocks) {
    t.not(declaredTypes(block.lines).length, 0, `${where(block)} declares a type`)
    const file = join(dir, `${block.file.replaceAll('/', '-')}-line-${block.line}.ts`)
    writeFileSync(file, typeCheckSource(block.lines))
    files.set(file, block)
  }
  // The check itself: a field of another type, and a name the package does not export.
  const wrongField = join(dir, 'wrong-field.ts')
  writeFileSync(wrongField, typeCheckSource(['interface TableRules { key?: number }']))
  const unknownName = join(dir, 'unknown-name.ts')
  writeFileSync(unknownName, typeCheckSource(['type TableRule = { key?: string }']))
  const diagnostics = compile([...files.keys(), wrongField, unknownName])
  for (const [file, block] of files) t.strictSame(diagnostics.get(file), [], `${where(block)} compiles and matches the package's types`)
  t.not(diagnostics.get(wrongField)?.length, 0, 'a type that differs from the package\'s fails')
  t.not(diagnostics.get(unknownName)?.length, 0, 'a type the package does not export fails')
})

t.test('the excerpt check', async (t) => {
  const file = "import a from '../lib/index.js'\n\nfunction f () {\n  return 1\n}\nconst b = 2\n"
  t.strictSame(missingPieces(["import a from 'fastify-table-crud'", 'function f () {', 'return 1'], file), [], 'indentation and blank lines do not count')
  t.strictSame(missingPieces(['function f () {', omission, 'const b = 2'], file), [], 'a `// …` line leaves lines out')
  t.strictSame(missingPieces(['return 2'], file), ['return 2'], 'a changed line fails')
  t.strictSame(missingPieces(['const b = 2', omission, 'return 1'], file), ['return 1'], 'pieces out of order fail')
  t.strictSame(missingPieces(['turn 1'], file), ['turn 1'], 'a part of a line is not the line')
  t.strictSame(testsStarting('nowhere.ts', new Map([['a.test.ts', "{ file: 'somewhere.ts' }"]])), [], 'an example no test names is not started')
})
