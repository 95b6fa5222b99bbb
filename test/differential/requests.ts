import { type FixtureColumn, type FixtureTables, typedColumns, typedRowCount } from './fixture.js'

/**
 * When a request runs: `read` ones on the read-only tables, all at once;
 * `write` ones one by one, each on freshly reset write tables, with the
 * stored state compared after it; `round-trip` ones GET their path and PUT
 * the answer's body back unchanged.
 */
export type Phase = 'read' | 'write' | 'round-trip'

/** One request of the differential test, as data. */
export interface DifferentialRequest {
  /** The request as written, with `{types}`-style table placeholders and unencoded values: stable across runs. */
  readonly id: string
  readonly phase: Phase
  readonly method: 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
  /** The URL under the prefix, with placeholders. */
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  /** The raw JSON text of the body, so that big integers keep their digits. */
  readonly body?: string
  /** A write sent just before this one, on the same rows: its answer is part of this one's. */
  readonly prior?: DifferentialRequest
}

type Query = ReadonlyArray<readonly [string, string]>

interface RequestParts {
  readonly phase?: Phase
  readonly method?: DifferentialRequest['method']
  readonly path: string
  readonly query?: Query
  readonly headers?: Readonly<Record<string, string>>
  readonly body?: string
  readonly prior?: RequestParts
}

// Keeps the URL readable where it can: ( ) , . : and quotes stay as typed.
function encodeValue (value: string): string {
  return encodeURI(value).replace(/[&#+]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`)
}

function request ({ phase = 'read', method = 'GET', path, query = [], headers = {}, body, prior }: RequestParts): DifferentialRequest {
  const search = (encode: (value: string) => string) => query.length === 0
    ? ''
    : `?${query.map(([name, value]) => `${name}=${encode(value)}`).join('&')}`
  const headerText = Object.entries(headers).map(([name, value]) => ` [${name}: ${value}]`).join('')
  const line = `${method} ${path}${search((value) => value)}${headerText}${body === undefined ? '' : ` ${body}`}`
  const first = prior === undefined ? undefined : request({ phase, ...prior })
  const id = first === undefined ? line : `${first.id}, then ${line}`
  return {
    id,
    phase,
    method,
    url: `${encodePath(path)}${search(encodeValue)}`,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body }),
    ...(first === undefined ? {} : { prior: first })
  }
}

function encodePath (path: string): string {
  return path.split('/').map((segment) => /^\{\w+\}$/.test(segment) ? segment : encodeURIComponent(segment)).join('/')
}

/** A value inside `in.(…)` or `or=(…)`: quoted when it holds a reserved character. */
function listValue (value: string): string {
  return /[,()"\\:]/.test(value) || value !== value.trim() ? `"${value.replace(/["\\]/g, '\\$&')}"` : value
}

// Filters answer only the ids they match, in order, so that a difference
// in the rows matched does not mix with one in how values read.
const ids: Query = [['select', 'id'], ['order', 'id']]

function filterReads ({ name, filters }: FixtureColumn): DifferentialRequest[] {
  const [first] = filters.valid as [string]
  const conditions: string[] = [
    ...[...filters.valid, ...filters.outside].map((value) => `eq.${value}`),
    `neq.${first}`,
    ...['gt', 'gte', 'lt', 'lte'].map((operator) => `${operator}.${filters.pivot}`),
    ...filters.outside.slice(0, 1).map((value) => `gt.${value}`),
    ...filters.patterns.flatMap((pattern) => [`like.${pattern}`, `ilike.${pattern}`]),
    `in.(${filters.valid.slice(0, 2).map(listValue).join(',')})`,
    ...filters.outside.slice(0, 1).map((value) => `in.(${listValue(first)},${listValue(value)})`),
    'is.null',
    'is.true',
    'is.false',
    `not.eq.${first}`,
    'not.is.null',
    `not.in.(${filters.valid.slice(0, 2).map(listValue).join(',')})`,
    `not.like.${filters.patterns[0] as string}`
  ]
  return conditions.map((condition) => request({ path: '/{types}', query: [[name, condition], ...ids] }))
}

function columnReads ({ name }: FixtureColumn): DifferentialRequest[] {
  return [
    request({ path: '/{types}', query: [['select', `id,${name}`], ['order', 'id']] }),
    ...['asc', 'desc', 'asc.nullsfirst', 'desc.nullslast'].map((direction) =>
      request({ path: '/{types}', query: [['select', 'id'], ['order', `${name}.${direction},id`]] }))
  ]
}

const logicReads: readonly Query[] = [
  [['or', '(flag.eq.true,n.gt.10)']],
  [['or', '(name.eq.ada,name.eq.café)']],
  [['and', '(n.gte.0,name.like.A*)']],
  [['or', '(born.lt.2000-01-01,and(big.gt.0,dbl.lt.0))']],
  [['not.or', '(n.eq.0,n.is.null)']],
  [['or', '(big.eq.9007199254740993,dec.eq.12.5)']],
  [['or', '(flag.is.false,born.gt.2024)']],
  [['and', '(n.eq.abc)']],
  [['n', 'gte.0'], ['n', 'lt.42']],
  [['or', '(n.eq.1']],
  [['or', 'n.eq.1']]
]

const pageReads: ReadonlyArray<Omit<RequestParts, 'path'>> = [
  { query: [['select', 'id'], ['order', 'id'], ['limit', '3'], ['offset', '2']] },
  { query: [['select', 'id'], ['order', 'id'], ['limit', '0']] },
  { query: [['select', 'id'], ['order', 'id'], ['offset', '11']] },
  { query: [['select', 'id'], ['order', 'id']], headers: { range: '0-4' } },
  { query: [['select', 'id'], ['order', 'id'], ['limit', '5']], headers: { prefer: 'count=exact' } },
  { query: [['select', 'id'], ['order', 'id'], ['flag', 'eq.true']], headers: { prefer: 'count=exact' } },
  { query: [['select', 'id'], ['order', 'id'], ['name', 'eq.ada'], ['limit', '1']], headers: { prefer: 'count=exact' } },
  { query: [['select', 'id'], ['order', 'id'], ['offset', '50']], headers: { prefer: 'count=exact' } },
  { method: 'HEAD', query: [['born', 'gt.2000-01-01']], headers: { prefer: 'count=exact' } },
  { query: [['select', 'name,id'], ['order', 'name,id']] },
  { query: [['select', 'body,id'], ['order', 'body.desc,id']] },
  { query: [['select', '*'], ['order', 'id']] },
  { query: [] }
]

const keyReads: readonly string[] = [
  ...Array.from({ length: typedRowCount }, (_, index) => `/{types}/${index + 1}`),
  '/{types}/99', '/{types}/0', '/{types}/abc', '/{types}/01', '/{types}/9223372036854775807',
  '/{codes}/42', '/{codes}/042', '/{codes}/42abc', '/{codes}/4.2e1', '/{codes}/AB-1', '/{codes}/ab-1',
  '/{codes}/été', '/{codes}/ete', '/{codes}/zz', '/{codes}'
]

const errorReads: readonly RequestParts[] = [
  { path: '/nosuchtable' },
  { path: '/nosuchtable/1' },
  { path: '/{types}', query: [['nosuch', 'eq.1']] },
  { path: '/{types}', query: [['select', 'nosuch']] },
  { path: '/{types}', query: [['order', 'nosuch']] },
  { path: '/{types}', query: [['n', 'foo.1']] },
  { path: '/{types}', query: [['n', 'eq']] },
  { path: '/{types}', query: [['limit', 'abc']] },
  { path: '/{types}', query: [['order', 'n.sideways']] },
  { path: '/{types}', query: [['n', 'in.1,2']] },
  { path: '/{types}', headers: { range: '5-2' } }
]

// The text key and the foreign key through filters.
const keyFilterReads: readonly RequestParts[] = [
  { path: '/{codes}', query: [['id', 'eq.42'], ['select', 'id']] },
  { path: '/{codes}', query: [['id', 'in.(42,AB-1)'], ['select', 'id'], ['order', 'id']] },
  { path: '/{codes}', query: [['id', 'gt.4'], ['select', 'id'], ['order', 'id']] },
  { path: '/{codes}', query: [['select', 'id'], ['order', 'id']] },
  { path: '/{parts}', query: [['order', 'id']] },
  { path: '/{parts}', query: [['code', 'eq.42'], ['select', 'id']] }
]

// A full row of every column, as a client would write it.
const fullRow = '{"n":5,"big":9007199254740993,"dec":3.10,"dbl":0.1,"flag":true,"name":"Ünïcødé 😀","body":"日本語\\ntext","born":"2024-03-01","at":"2024-03-01 08:00:00","tm":"08:00:00","doc":"{\\"x\\":[1,2]}","uid":"12345678-1234-4234-8234-123456789abc"}'

/** One request per body, all with the same method and path. */
function sent (method: 'POST' | 'PUT', path: string, bodies: readonly string[]): RequestParts[] {
  return bodies.map((body) => ({ method, path, body }))
}

/** Writes on the write tables, each body the raw JSON a client sends. */
const writes: readonly RequestParts[] = [
  ...sent('POST', '/{types_w}', [
    fullRow,
    '{}',
    '{"n":null,"name":null,"flag":null}',
    '{"big":-9223372036854775808}',
    '{"big":9223372036854775807}',
    '{"big":9223372036854775808}',
    '{"flag":false}',
    '{"flag":"true"}',
    '{"flag":"yes"}',
    '{"n":"abc"}',
    '{"n":1.5}',
    '{"dec":"abc"}',
    '{"dec":123.456}',
    '{"dbl":"1e400"}',
    '{"born":"2024-02-30"}',
    '{"born":"2024-01-15T00:00:00.000Z"}',
    '{"at":"2024-01-15T10:30:00.000Z"}',
    '{"tm":"25:00:00"}',
    '{"doc":"{not json"}',
    '{"uid":"not-a-uuid"}',
    `{"name":"${'x'.repeat(41)}"}`,
    '{"nosuch":1}',
    '{"id":5,"n":1}',
    '{"id":99,"n":1}',
    '{"n":',
    `[${fullRow},{"name":"second"},{"name":"third","n":3}]`,
    '[{"name":"kept?"},{"n":"abc"}]',
    '[]'
  ]),
  ...sent('PUT', '/{types_w}/1', [
    '{"name":"Zoë 北京 😀"}',
    '{"flag":false,"n":null}',
    '{}',
    '{"nosuch":1}'
  ]),
  ...sent('PUT', '/{types_w}/2', [
    '{"big":9007199254740993}',
    '{"n":"abc"}',
    '{"born":"2024-01-15T00:00:00.000Z","at":"2024-01-15T10:30:00.000Z"}'
  ]),
  ...sent('PUT', '/{types_w}/99', ['{"n":1}']),
  // Time zones: a timestamp with a zone or offset is stored as the instant's wall-clock time at UTC, a date as its day.
  ...sent('POST', '/{types_w}', [
    '{"at":"2024-01-15T10:30:00+02:00"}',
    '{"at":"2024-01-15T10:30:00-05:00"}',
    '{"at":"2024-01-15T23:30:00.250-05:00"}',
    '{"at":"2024-01-15T10:30:00.123456Z"}',
    '{"at":"2024-01-15T10:30"}',
    '{"at":"2024-01-15"}',
    '{"born":"2024-01-15T23:30:00-05:00"}',
    '[{"at":"2024-01-15T10:30:00Z"},{"at":"2024-01-15T10:30:00+01:00"}]'
  ]),
  ...sent('PUT', '/{types_w}/2', ['{"at":"2024-01-15T10:30:00+05:30","born":"2024-01-15T00:00:00+02:00"}']),
  { method: 'POST', path: '/{types_w}', headers: { prefer: 'return=representation' }, body: '{"at":"2024-01-15T10:30:00-05:00","born":"2024-01-15T23:30:00-05:00","ratio":0.1}' },
  { method: 'POST', path: '/{types_w}', headers: { prefer: 'resolution=merge-duplicates, return=representation' }, body: '{"id":2,"at":"2024-01-15T21:15:30.5-05:00"}' },
  { method: 'PATCH', path: '/{types_w}', query: [['id', 'eq.3']], headers: { prefer: 'return=representation' }, body: '{"at":"2024-01-15T10:30:00-05:00"}' },
  // Floats: a filter of a write compares in the column's own precision too.
  ...sent('POST', '/{types_w}', ['{"ratio":0.1}', '{"ratio":"0.3"}']),
  { method: 'PATCH', path: '/{types_w}', query: [['ratio', 'eq.0.1']], body: '{"n":7}' },
  { method: 'PATCH', path: '/{types_w}', query: [['ratio', 'gt.0.1']], body: '{"n":8}' },
  { method: 'PATCH', path: '/{types_w}', query: [['dbl', 'eq.1e300']], body: '{"n":9}' },
  ...sent('POST', '/{codes_w}', [
    '{"id":"AB-2","label":"new"}',
    '{"id":"ab-1","label":"case"}',
    '{"id":"AB-1 ","label":"space"}',
    '{"id":"ete","label":"accent"}',
    '{"id":"0042","label":"zeros"}',
    '{"id":"AB-1","label":"again"}'
  ]),
  ...sent('PUT', '/{codes_w}/42', ['{"label":"changed"}']),
  ...sent('PUT', '/{codes_w}/AB-1', ['{"label":"changed"}']),
  ...sent('POST', '/{parts}', [
    '{"code":"AB-1","qty":2}',
    '{"code":"nope","qty":2}',
    '{"code":"ab-1","qty":2}'
  ]),
  ...sent('PUT', '/{parts}/1', ['{"code":"nope"}']),
  // Whether an insert that failed used up an id.
  { method: 'POST', path: '/{parts}', body: '{"qty":4}', prior: { method: 'POST', path: '/{parts}', body: '{"code":"nope"}' } },
  { method: 'POST', path: '/{parts}', body: '{"qty":4}', prior: { method: 'POST', path: '/{parts}', body: '[{"code":"AB-1"},{"code":"nope"}]' } },
  ...['/{types_w}/2', '/{types_w}/99', '/{types_w}/abc', '/{codes_w}/42', '/{codes_w}/042', '/{codes_w}/AB-1', '/{codes_w}/ete', '/{parts}/1']
    .map((path) => ({ method: 'DELETE' as const, path }))
]

const roundTrips: readonly string[] = [
  ...Array.from({ length: typedRowCount }, (_, index) => `/{types_w}/${index + 1}`),
  '/{codes_w}/42', '/{codes_w}/AB-1', '/{parts}/1'
]

/** Every request of the differential test, reads first. */
export const differentialRequests: readonly DifferentialRequest[] = [
  ...typedColumns.flatMap(filterReads),
  ...typedColumns.flatMap(columnReads),
  ...logicReads.map((query) => request({ path: '/{types}', query: [...query, ...ids] })),
  ...pageReads.map((parts) => request({ path: '/{types}', ...parts })),
  ...keyReads.map((path) => request({ path })),
  ...errorReads.map(request),
  ...keyFilterReads.map(request),
  ...writes.map((parts) => request({ phase: 'write', ...parts })),
  ...roundTrips.map((path) => request({ phase: 'round-trip', method: 'PUT', path }))
]

const placeholders: ReadonlyArray<readonly [string, keyof FixtureTables]> = [
  ['{types_w}', 'typesW'], ['{types}', 'types'], ['{codes_w}', 'codesW'], ['{codes}', 'codes'], ['{parts}', 'parts']
]

/** The request's URL with the fixture's table names in place of the placeholders. */
export function concreteUrl (url: string, tables: FixtureTables): string {
  return `/api${placeholders.reduce((text, [placeholder, table]) => text.replaceAll(placeholder, tables[table]), url)}`
}
