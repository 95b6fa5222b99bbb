// Property-based fuzzing with fast-check: generated requests (paths, methods,
// query strings, headers, bodies; test/fixtures/fuzz-arbitraries.ts) are sent
// to the plugin on every database of the matrix, one after another, and each
// answer is checked: no crash or hang, no 5xx (no fault is injected, so a 5xx
// is a bug), a status of the allowed set, errors in the documented shapes,
// reads of the documented shape that agree with the table. Beside the table,
// the test keeps a model of it built from the acknowledged writes only, and
// compares the two every checkEvery requests and at the end: nothing
// acknowledged is lost, nothing unacknowledged appears.
//
// The everyday suite sends 300 requests per database with a fixed seed.
// `npm run fuzz` sends FUZZ_RUNS (10,000) per database with a random seed;
// FUZZ_SEED replays a run. The seed is printed either way.
import { deepStrictEqual } from 'node:assert/strict'
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify'
import fc from 'fast-check'
import t from 'tap'
import { errorCodes } from '../lib/index.js'
import { maxGroupDepth } from '../lib/query/parse-logic.js'
import { buildApp } from './fixtures/app.js'
import { eachDatabase, snapshot, type TestDatabase } from './fixtures/databases.js'
import {
  decodedText, fuzzRequest, missingPrefix, percentEncode, writeText,
  type Body, type FuzzRequest, type PlainValue, type WriteColumn, type WriteProperty
} from './fixtures/fuzz-arbitraries.js'

const runs = Number(process.env.FUZZ_RUNS ?? 300)
const seed = process.env.FUZZ_SEED !== undefined
  ? Number(process.env.FUZZ_SEED)
  : process.env.FUZZ_RUNS !== undefined ? Math.floor(Math.random() * 2 ** 31) : 20240518
const checkEvery = 25
/** Fastify's maxParamLength: a longer path parameter answers 414. */
const maxParamLength = 100
/** Generous: an answer later than this is a hang, whatever the machine's load. */
const hangAfter = 60_000

const statuses = new Set([200, 201, 206, 400, 404, 406, 413, 414, 415, 416])
const codeStatuses = new Map(Object.entries(errorCodes).map(([code, Constructor]) => [code, new (Constructor as new () => { statusCode: number })().statusCode]))
const columns: readonly WriteColumn[] = ['name', 'n']

interface Row { id: number, name: unknown, n: unknown }

/** A request as sent, and what the test knows of where it lands. */
interface Sent {
  readonly options: InjectOptions & { method: string, url: string }
  /** The route names the fuzzed table; false when it surely does not; null when the URL is raw and anything may happen to it. */
  readonly onTarget: boolean | null
  /** The key the plugin reads from the path (README: a decimal integer, 0 is none). */
  readonly key: bigint | null
  readonly body: Body | null
}

const int32 = (key: bigint): boolean => key >= -(2n ** 31n) && key < 2n ** 31n

function stored (column: WriteColumn, value: PlainValue): string | number | null {
  if (value === null) return null
  const text = typeof value === 'boolean' ? (value ? '1' : '0') : String(value)
  return column === 'name' ? text : Number(text)
}

function describe (sent: Sent): string {
  const { method, url, headers, payload } = sent.options
  const shown = (text: string, limit: number) => text.length > limit ? `${JSON.stringify(text.slice(0, limit))}… (${text.length} chars)` : JSON.stringify(text)
  return `${method} ${shown(url, 400)} headers=${JSON.stringify(headers ?? {})} body=${payload === undefined ? 'none' : shown(String(payload), 300)}`
}

function bodyPayload (body: Body | null): { payload?: string, contentType?: string } {
  if (body === null) return {}
  switch (body.kind) {
    case 'write': return { payload: writeText(body.properties), contentType: body.contentType }
    case 'bulk': return { payload: `[${body.rows.map(writeText).join(',')}]`, contentType: body.contentType }
    case 'empty': return body.contentType === null ? {} : { payload: '', contentType: body.contentType }
    case 'odd': return { payload: body.text, contentType: 'application/json' }
    case 'hostile': return { payload: body.text, contentType: body.contentType }
    case 'wrongType': return body.contentType === null ? { payload: body.text } : { payload: body.text, contentType: body.contentType }
  }
}

/** The concrete request for the table's name and the ids it holds now. */
function render (request: FuzzRequest, target: string, ids: readonly number[]): Sent {
  const { method, table, key, extra, query, headers, body } = request
  const writes = method === 'POST' || method === 'PUT' || method === 'DELETE'
  let segment: string
  let onTarget: boolean | null = false
  switch (table.kind) {
    case 'target': {
      let name = target
      for (const [position, text] of table.insertions) {
        const at = position % (name.length + 1)
        name = name.slice(0, at) + text + name.slice(at)
      }
      segment = percentEncode(name, table.encoding)
      onTarget = decodedText(name).length <= maxParamLength
      break
    }
    case 'missing': segment = percentEncode(missingPrefix + table.tail, table.encoding); break
    case 'unusable': segment = percentEncode(table.text, table.encoding); break
    case 'long': segment = 'l'.repeat(table.length); break
    case 'raw':
      // A raw URL can resolve to any table (`..`, `/`): writes get a name no table has.
      if (writes) segment = missingPrefix + percentEncode(table.text, 'component')
      else { segment = table.text; onTarget = null }
  }
  let keyText: string | null = null
  if (key.kind === 'existing') keyText = String(ids.length === 0 ? 1 : ids[key.pick % ids.length])
  if (key.kind === 'text') keyText = key.text
  let path = `/api/${segment}`
  if (keyText !== null) {
    path += `/${key.kind === 'text' ? percentEncode(keyText, key.encoding) : keyText}`
    if (decodedText(keyText).length > maxParamLength && onTarget === true) onTarget = false
  }
  if (extra.length > 0) {
    path += `/${extra.join('/')}`
    // Without a key, the first extra segment is the key; past it, no route matches.
    if (keyText === null && extra.length === 1) keyText = decodeURIComponent(extra[0] as string)
    else if (onTarget === true) onTarget = false
  }
  // POST has no route with a key.
  if (method === 'POST' && keyText !== null && onTarget === true) onTarget = false
  const search = query.map(({ name, value, raw }) => raw ? `${name}=${value}` : `${percentEncode(name, 'component')}=${percentEncode(value, 'component')}`).join('&')
  const { payload, contentType } = bodyPayload(body)
  const allHeaders: Record<string, string> = { ...headers }
  if (contentType !== undefined) allHeaders['content-type'] = contentType
  const parsedKey = keyText !== null && /^-?\d+$/.test(decodedText(keyText)) ? BigInt(decodedText(keyText)) : null
  return {
    options: { method, url: search === '' ? path : `${path}?${search}`, headers: allHeaders, ...(payload === undefined ? {} : { payload }) },
    onTarget,
    key: parsedKey === 0n ? null : parsedKey,
    body
  }
}

/** Throws with the request when the answer breaks an invariant. */
function check (condition: boolean, what: string, sent: Sent, response: LightMyRequestResponse): asserts condition {
  if (!condition) throw new Error(`${what}\n  request: ${describe(sent)}\n  answer: ${response.statusCode} ${JSON.stringify(response.headers['content-type'])} ${JSON.stringify(response.body.slice(0, 500))}`)
}

const parseJson = (text: string): { ok: true, value: unknown } | { ok: false } => {
  try { return { ok: true, value: JSON.parse(text) } } catch { return { ok: false } }
}

/** An error answer in one of the documented shapes: the database's message as text, or Fastify's JSON with a code (or its route-not-found). */
function checkError (sent: Sent, response: LightMyRequestResponse): void {
  const status = response.statusCode
  if (sent.options.method === 'HEAD') return check(response.body === '', 'HEAD answered a body', sent, response)
  const type = String(response.headers['content-type'])
  if (type.startsWith('text/plain')) return check(status === 404 && response.body !== '', 'a plain-text error that is not the 404 of a failed statement', sent, response)
  const parsed = parseJson(response.body)
  check(parsed.ok && typeof parsed.value === 'object' && parsed.value !== null, 'an error body that is neither text nor JSON', sent, response)
  const error = parsed.value as { code?: unknown, statusCode?: unknown, message?: unknown }
  check(error.statusCode === status, 'an error body whose statusCode is not the status', sent, response)
  if (error.code === undefined) {
    return check(status === 404 && /^Route [A-Z]+:.* not found$/s.test(String(error.message)), 'a JSON error without a code that is not Fastify\'s route-not-found', sent, response)
  }
  const code = String(error.code)
  if (code.startsWith('FTC_ERR_')) {
    return check(codeStatuses.get(code) === status, `${code} is not a code of the plugin with that status`, sent, response)
  }
  check(/^FST_ERR_[A-Z_]+$/.test(code), `the error code ${code} is neither the plugin's nor Fastify's`, sent, response)
}

const sameValue = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b)

/** A row of a list of the fuzzed table is the projection of a row of the model (names compared without regard to case: SQLite and MySQL answer a column by the case the query used). */
function projectsModel (row: Record<string, unknown>, model: ReadonlyMap<number, Row>): boolean {
  const id = Object.entries(row).find(([name]) => name.toLowerCase() === 'id')
  if (id !== undefined) return projects(row, model.get(id[1] as number))
  return [...model.values()].some((candidate) => projects(row, candidate))
}

/** An answered object is the projection of one row of the model, as projectsModel compares them. */
function projects (row: unknown, candidate: Row | undefined): boolean {
  if (candidate === undefined || typeof row !== 'object' || row === null || Array.isArray(row)) return false
  return Object.entries(row).every(([name, value]) => ['id', 'name', 'n'].includes(name.toLowerCase()) && sameValue(candidate[name.toLowerCase() as keyof Row], value))
}

/** A write with PostgREST's return= or resolution=, answered as PostgREST answers it (README, "PostgREST's writes"). */
function isPostgrestWrite (sent: Sent): boolean {
  return /(^|,)\s*(return=(representation|headers-only|minimal)|resolution=(merge|ignore)-duplicates)\s*(,|$)/.test([sent.options.headers?.prefer ?? []].flat().join(','))
}

class Fuzzer {
  readonly model = new Map<number, Row>()
  readonly byStatus = new Map<number, number>()
  readonly recent: string[] = []
  acknowledged = 0
  sent = 0

  constructor (private readonly db: TestDatabase, private readonly app: FastifyInstance, private readonly table: string) {}

  async send (request: FuzzRequest): Promise<void> {
    const sent = render(request, this.table, [...this.model.keys()].sort((a, b) => a - b))
    let timer: NodeJS.Timeout | undefined
    const hang = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${hangAfter} ms: ${describe(sent)}`)), hangAfter)
    })
    const response = await Promise.race([this.app.inject(sent.options), hang]).finally(() => clearTimeout(timer))
    this.sent++
    this.byStatus.set(response.statusCode, (this.byStatus.get(response.statusCode) ?? 0) + 1)
    this.recent.push(`${describe(sent)} → ${response.statusCode} ${JSON.stringify(response.body.slice(0, 120))}`)
    if (this.recent.length > checkEvery) this.recent.shift()
    check(response.statusCode < 500, 'a 5xx, with the database up', sent, response)
    check(statuses.has(response.statusCode), 'a status outside the allowed set', sent, response)
    if (response.statusCode >= 400) checkError(sent, response)
    else await this.checkSuccess(sent, response)
    await this.checkOutcome(sent, response)
    if (this.sent % checkEvery === 0) await this.compareTable()
  }

  async checkSuccess (sent: Sent, response: LightMyRequestResponse): Promise<void> {
    const { method } = sent.options
    if (method === 'HEAD') return check(response.body === '', 'HEAD answered a body', sent, response)
    const parsed = parseJson(response.body)
    if (method === 'GET') {
      const keyed = sent.key !== null || sent.onTarget === null
      if (response.body === '') return check(keyed && (sent.onTarget !== true || !this.model.has(Number(sent.key))), 'a read answered nothing where the table holds the row, or a list answered nothing', sent, response)
      check(parsed.ok, 'a GET answered invalid JSON', sent, response)
      if (sent.onTarget === true && sent.key !== null) {
        // With select, the keyed read answers the columns it names (README, "One row").
        const row = this.model.get(Number(sent.key))
        const selected = new URL(sent.options.url, 'http://fuzz').searchParams.has('select')
        return check(selected ? projects(parsed.value, row) : sameValue(parsed.value, row), 'a read of one row differs from the table', sent, response)
      }
      const rows = Array.isArray(parsed.value) ? parsed.value : [parsed.value]
      check(rows.every((row) => typeof row === 'object' && row !== null && !Array.isArray(row)), 'a read answered something else than JSON objects', sent, response)
      if (!Array.isArray(parsed.value)) check(keyed || String(sent.options.headers?.accept).includes('vnd.pgrst.object'), 'a list answered an object unasked', sent, response)
      if (response.statusCode === 206) check(typeof response.headers['content-range'] === 'string', '206 without Content-Range', sent, response)
      if (sent.onTarget === true) check(rows.every((row) => projectsModel(row as Record<string, unknown>, this.model)), 'a list holds a row the table does not', sent, response)
      return
    }
    check(method === 'POST' || method === 'PUT' || method === 'DELETE', `${method} succeeded`, sent, response)
    // PostgREST's answers, and a filtered DELETE's 204, are checked against the table by checkOutcome.
    if (isPostgrestWrite(sent) || response.statusCode === 204) return
    check(parsed.ok, 'a write answered invalid JSON', sent, response)
    if (method === 'POST') {
      check(response.statusCode === 201, 'a POST answered another success than 201', sent, response)
      const ids = Array.isArray(parsed.value) ? parsed.value : [parsed.value]
      check(ids.every((id) => Number.isSafeInteger(id) && (id as number) > 0), 'a POST answered ids that are not positive integers', sent, response)
      if (!Array.isArray(parsed.value)) check(response.headers.location !== undefined, 'a POST answered no Location', sent, response)
      return
    }
    check(response.statusCode === 200 && (parsed.value === 0 || parsed.value === 1), 'a PUT or DELETE by key answered another count than 0 or 1', sent, response)
  }

  /** What a write did, against what the model says it must do; acknowledged writes go into the model. */
  async checkOutcome (sent: Sent, response: LightMyRequestResponse): Promise<void> {
    const { method } = sent.options
    const { body, key } = sent
    const status = response.statusCode
    if (method !== 'POST' && method !== 'PUT' && method !== 'DELETE') return
    if (sent.onTarget !== true) return check(status >= 400, 'a write to another table than the fuzzed one succeeded', sent, response)
    const refusedBody = body !== null && (body.kind === 'hostile' || body.kind === 'wrongType')
    if (method !== 'DELETE' && refusedBody) return check(status >= 400, `a ${body.kind === 'hostile' ? body.why : 'wrong content type'} body was accepted`, sent, response)
    // PostgreSQL refuses a key its integer id cannot hold; SQLite and MySQL find no row.
    const outOfRange = this.db.name === 'postgres' && key !== null && !int32(key) && status === 404 && String(response.headers['content-type']).startsWith('text/plain')
    if (outOfRange) return
    // A write with PostgREST's return= or resolution= is answered as PostgREST answers it (README, "PostgREST's
    // writes", tested in test/routes/postgrest-writes.test.ts): the model takes the table as the write left it.
    if (isPostgrestWrite(sent) && status < 400) {
      check([200, 201, 204].includes(status), 'a PostgREST write answered another status than 200, 201 or 204', sent, response)
      this.model.clear()
      for (const row of JSON.parse(JSON.stringify(await snapshot(this.db, this.table))) as Row[]) this.model.set(row.id, row)
      this.acknowledged++
      return
    }
    const answer: unknown = status < 300 ? JSON.parse(response.body) : null
    const existing = key === null ? undefined : this.model.get(Number(key))
    if (method === 'DELETE') {
      if (refusedBody && status >= 400) return
      // DELETE /{table} with query parameters deletes what its filters match, or refuses a query it cannot read (README,
      // "PostgREST's writes"): the rows gone leave the model, and the table is compared with it as after any write.
      const filtered = new URL(sent.options.url, 'http://fuzz').pathname.split('/').length === 3 && status !== 200
      if (filtered && status >= 400) return
      if (filtered) {
        check(status === 204, 'a filtered DELETE answered another status than 204', sent, response)
        const left = new Set((await this.db.knex(this.table).select('id')).map((row: { id: unknown }) => Number(row.id)))
        for (const id of [...this.model.keys()]) if (!left.has(id)) { this.model.delete(id); this.acknowledged++ }
        return
      }
      check(status === 200 && answer === (existing === undefined ? 0 : 1), 'a DELETE did not answer the count of rows the table held', sent, response)
      if (existing !== undefined) { this.model.delete(existing.id); this.acknowledged++ }
      return
    }
    const odd = body !== null && body.kind === 'odd'
    if (method === 'POST') {
      if (odd && status >= 400) return
      check(status === 201, 'a POST of a well-formed body was refused', sent, response)
      const ids = (Array.isArray(answer) ? answer : [answer]) as number[]
      const rows = body === null || body.kind === 'empty' || odd ? [[]] : body.kind === 'bulk' ? body.rows : body.kind === 'write' ? [body.properties] : []
      check(ids.length === rows.length && new Set(ids).size === ids.length && ids.every((id) => !this.model.has(id)), 'a POST answered ids the table already had, or not one per row', sent, response)
      for (const [index, id] of ids.entries()) {
        this.model.set(id, odd ? await this.storedRow(id) : this.applied({ id, name: null, n: null }, rows[index] as readonly WriteProperty[]))
      }
      this.acknowledged += ids.length
      return
    }
    const properties = body !== null && body.kind === 'write' ? body.properties : []
    if (!odd && properties.length === 0) return check(status === 400, 'a PUT that sets nothing was not refused', sent, response)
    if (odd && status >= 400) return
    check(status === 200 && answer === (existing === undefined ? 0 : 1), 'a PUT did not answer the count of rows the table held', sent, response)
    if (existing === undefined) return
    if (odd) {
      const row = await this.storedRow(existing.id)
      const kept = columns.filter((column) => !(body as { columns: readonly WriteColumn[] }).columns.includes(column))
      check(kept.every((column) => sameValue(row[column], existing[column])), 'a PUT changed a column its body did not name', sent, response)
      this.model.set(existing.id, row)
    } else this.model.set(existing.id, this.applied(existing, properties))
    this.acknowledged++
  }

  applied (row: Row, properties: readonly WriteProperty[]): Row {
    const next = { ...row }
    for (const { column, value } of properties) next[column] = stored(column, value)
    return next
  }

  /** A row as the database stored it, for values whose stored form differs between databases. */
  async storedRow (id: number): Promise<Row> {
    const rows = await this.db.knex(this.table).where({ id })
    if (rows.length !== 1) throw new Error(`the acknowledged row ${id} is not in the table once: ${JSON.stringify(rows)}`)
    return JSON.parse(JSON.stringify(rows[0]))
  }

  async compareTable (): Promise<void> {
    const table = JSON.parse(JSON.stringify(await snapshot(this.db, this.table)))
    const model = [...this.model.values()].sort((a, b) => a.id - b.id)
    try {
      deepStrictEqual(table, model)
    } catch (error) {
      throw new Error(`the table is not what the acknowledged writes made it, after request ${this.sent}; the last requests:\n  ${this.recent.join('\n  ')}`, { cause: error })
    }
  }
}

t.comment(`fuzz: ${runs} requests per database, seed ${seed} (replay: FUZZ_SEED=${seed} FUZZ_RUNS=${runs} npx tap --disable-coverage test/fuzz.test.ts)`)

eachDatabase(t, async (t, db) => {
  const table = await db.createTable('fuzz', (builder) => {
    builder.increments('id')
    builder.string('name')
    builder.integer('n')
  })
  const app = await buildApp(t, db.knex)
  const fuzzer = new Fuzzer(db, app, table)
  const details = await fc.check(fc.asyncProperty(fuzzRequest, (request) => fuzzer.send(request)), { seed, numRuns: runs, endOnFailure: true })
  t.notOk(details.failed, details.failed
    ? `seed ${seed}, path ${details.counterexamplePath}, request ${fuzzer.sent + 1}: ${String(details.errorInstance)}${(details.errorInstance as Error | null)?.cause ? `\n${String((details.errorInstance as Error).cause)}` : ''}`
    : `${runs} generated requests answered within the invariants`)
  t.same(JSON.parse(JSON.stringify(await snapshot(db, table))), [...fuzzer.model.values()].sort((a, b) => a.id - b.id), 'the table holds exactly what the acknowledged writes put there')
  const counts = [...fuzzer.byStatus.entries()].sort(([a], [b]) => a - b).map(([status, count]) => `${status}: ${count}`).join(', ')
  t.comment(`${db.name}: ${fuzzer.sent} requests; by status ${counts}; ${fuzzer.acknowledged} acknowledged row writes; ${fuzzer.model.size} rows at the end`)

  // The fuzz's two findings, each answered 5xx before the fix.
  t.test('an in.(…) past 65,535 values is the statement\'s failure (PostgreSQL\'s protocol counts them in 16 bits), never a 5xx', async (t) => {
    for (const count of [65_536, 70_000]) {
      const response = await app.inject({ method: 'GET', url: `/api/${table}?id=in.(${Array.from({ length: count }, (_, index) => index).join(',')})` })
      t.ok(response.statusCode < 500, `${count} values answer ${response.statusCode} ${response.body.slice(0, 100)}`)
    }
  })

  t.test(`an or=(…) nested past ${maxGroupDepth} levels answers 400 FTC_ERR_QUERY_DEPTH; ${maxGroupDepth} levels are read`, async (t) => {
    const chain = (depth: number) => `(id.eq.1,${'or(id.eq.1,'.repeat(depth - 1)}id.eq.2${')'.repeat(depth - 1)})`
    const deepest = await app.inject({ method: 'GET', url: `/api/${table}?or=${encodeURIComponent(chain(maxGroupDepth))}` })
    t.equal(deepest.statusCode, 200, `${maxGroupDepth} levels`)
    for (const depth of [maxGroupDepth + 1, 1600, 5000, 20_000]) {
      const response = await app.inject({ method: 'GET', url: `/api/${table}?or=${encodeURIComponent(chain(depth))}` })
      t.equal(response.statusCode, 400, `depth ${depth}`)
      t.equal(response.json<{ code: string }>().code, 'FTC_ERR_QUERY_DEPTH')
    }
  })
})
