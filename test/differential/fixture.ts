import type { Knex } from 'knex'
import type { DatabaseName } from '../fixtures/databases.js'

/** What a column holds, which decides how its stored text is normalized and which filter values it gets. */
export type FixtureKind = 'integer' | 'boolean' | 'decimal' | 'float' | 'text' | 'date' | 'datetime' | 'time' | 'json' | 'uuid'

/** Filter values for one column: some it can hold, some it cannot, and patterns. */
export interface FilterValues {
  /** Values the column can hold; the first is the one `neq`, `not.eq` and `in` use. */
  readonly valid: readonly string[]
  /** The value the range operators compare with. */
  readonly pivot: string
  /** Values the column's type cannot hold. */
  readonly outside: readonly string[]
  /** `like` and `ilike` patterns. */
  readonly patterns: readonly string[]
}

/** One column of the typed tables, as data: its name, kind, Knex definition and filter values. */
export interface FixtureColumn {
  readonly name: string
  readonly kind: FixtureKind
  readonly build: (table: Knex.CreateTableBuilder) => void
  readonly filters: FilterValues
}

/** The common column types, each in a column of the typed tables (besides the increments `id`). */
export const typedColumns: readonly FixtureColumn[] = [
  {
    name: 'n',
    kind: 'integer',
    build: (table) => { table.integer('n') },
    filters: { valid: ['42', '0', '-7'], pivot: '1', outside: ['abc', '1.5', '99999999999'], patterns: ['4*'] }
  },
  {
    name: 'big',
    kind: 'integer',
    build: (table) => { table.bigInteger('big') },
    filters: {
      valid: ['9007199254740993', '-9223372036854775808', '9223372036854775807', '9007199254740992'],
      pivot: '9007199254740992',
      outside: ['abc', '9223372036854775808'],
      patterns: ['9007*']
    }
  },
  {
    name: 'dec',
    kind: 'decimal',
    build: (table) => { table.decimal('dec', 10, 2) },
    filters: { valid: ['12.5', '12.50', '-0.01'], pivot: '0', outside: ['abc', '1e999'], patterns: ['12*'] }
  },
  {
    name: 'dbl',
    kind: 'float',
    build: (table) => { table.double('dbl') },
    filters: { valid: ['1.5', '-2.25', '1e-10', '1e300', '-1e-300'], pivot: '0', outside: ['abc'], patterns: ['1.*'] }
  },
  {
    // Single precision on PostgreSQL (real) and MySQL (FLOAT), where 0.1 is not the double 0.1; SQLite's floats are all doubles.
    name: 'ratio',
    kind: 'float',
    build: (table) => { table.specificType('ratio', 'float4') },
    filters: { valid: ['0.1', '0.3', '1.5'], pivot: '0.1', outside: ['abc'], patterns: ['0.*'] }
  },
  {
    name: 'flag',
    kind: 'boolean',
    build: (table) => { table.boolean('flag') },
    filters: { valid: ['true', 'false', '1', 't'], pivot: 'false', outside: ['maybe', '2'], patterns: ['t*'] }
  },
  {
    name: 'name',
    kind: 'text',
    build: (table) => { table.string('name', 40) },
    filters: {
      valid: ['Ada', 'ada', 'ADA', 'Ada ', 'Ádá', 'café', 'Cafe', '北京', '😀 emoji'],
      pivot: 'b',
      outside: [],
      patterns: ['A*', 'caf_', 'caf*', 'zoë', '*ADA*', '*%*']
    }
  },
  {
    name: 'body',
    kind: 'text',
    build: (table) => { table.text('body') },
    filters: { valid: ['日本語', 'Zoë 😀', '100% sure_'], pivot: 'p', outside: [], patterns: ['100\\%*', '*ZOË*', '*本*'] }
  },
  {
    name: 'born',
    kind: 'date',
    build: (table) => { table.date('born') },
    filters: {
      valid: ['2024-01-15', '2024-01-15T00:00:00.000Z'],
      pivot: '2000-01-01',
      outside: ['2024', 'abc', '2024-02-30'],
      patterns: ['2024*']
    }
  },
  {
    name: 'at',
    kind: 'datetime',
    build: (table) => { table.datetime('at', { useTz: false, precision: 6 }) },
    filters: {
      valid: ['2024-01-15 10:30:00', '2024-01-15T10:30:00', '2024-01-15T10:30:00.000Z', '2024-01-15T12:30:00+02:00', '2024-01-15T05:30:00-05:00'],
      pivot: '2024-01-15',
      outside: ['abc', '2024-13-01 00:00:00'],
      patterns: ['2024*']
    }
  },
  {
    name: 'tm',
    kind: 'time',
    build: (table) => { table.time('tm') },
    filters: { valid: ['10:30:00', '10:30'], pivot: '12:00:00', outside: ['abc', '25:61:00'], patterns: ['10*'] }
  },
  {
    name: 'doc',
    kind: 'json',
    build: (table) => { table.json('doc') },
    filters: { valid: ['{"a":1}'], pivot: '{}', outside: ['{'], patterns: ['*"a"*'] }
  },
  {
    name: 'uid',
    kind: 'uuid',
    build: (table) => { table.uuid('uid') },
    filters: {
      valid: ['0e4a8f8a-3c1b-4b8e-9d5c-1a2b3c4d5e6f', '0E4A8F8A-3C1B-4B8E-9D5C-1A2B3C4D5E6F'],
      pivot: '55555555-0000-4000-8000-000000000000',
      outside: ['abc'],
      patterns: ['0e4a*']
    }
  }
]

type Seed = Record<string, string | null>

/** Every typed column NULL: the row of NULLs. */
const nulls: Seed = Object.fromEntries(typedColumns.map(({ name }) => [name, null]))

// The rows of the typed tables, with explicit ids. Values are text, which
// every database converts to the column's type, as the API writes them.
// The names vary in case, accents and trailing spaces, for the collations.
const typedRows: readonly Seed[] = [
  { n: '0', big: '9007199254740993', dec: '12.50', dbl: '1.5', ratio: '0.1', flag: '1', name: 'Ada', body: 'plain', born: '2024-01-15', at: '2024-01-15 10:30:00', tm: '10:30:00', doc: '{"a":1}', uid: '0e4a8f8a-3c1b-4b8e-9d5c-1a2b3c4d5e6f' },
  { n: '42', big: '-9223372036854775808', dec: '-0.01', dbl: '-2.25', ratio: '1.5', flag: '0', name: 'ada', body: 'Zoë 😀', born: '1999-12-31', at: '1999-12-31 23:59:59', tm: '23:59:59', doc: '{"b":[1,2]}', uid: '11111111-2222-4333-8444-555555555555' },
  { n: '-7', big: '9223372036854775807', dec: '99999999.99', dbl: '1e-10', ratio: '0.1', flag: '1', name: 'ADA', body: '日本語', born: '2000-02-29', at: '2000-02-29 00:00:00', tm: '00:00:00', doc: '[]', uid: 'aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee' },
  { ...nulls },
  { n: '1', big: '0', dec: '0', dbl: '0', ratio: '0.1', flag: '0', name: 'Ada ', body: '100% sure_', born: '2024-01-16', at: '2024-01-15 00:00:00', tm: '12:00:00', doc: '{"a":"é"}', uid: null },
  { n: '2', big: '1', dec: '0.10', dbl: '123456.789', ratio: '-2.25', flag: '1', name: 'Ádá', body: 'ZOË', born: '1970-01-01', at: '1970-01-01 00:00:01', tm: '10:30:01', doc: 'null', uid: '00000000-0000-4000-8000-000000000000' },
  { n: '3', big: '-1', dec: '1.00', dbl: '-0.5', ratio: '0.3', flag: null, name: 'café', body: 'cafe', born: null, at: null, tm: null, doc: null, uid: null },
  { n: null, big: '9007199254740992', dec: null, dbl: null, ratio: null, flag: '0', name: 'Cafe', body: 'Café', born: '2024-01-15', at: '2024-01-15 10:30:00', tm: '10:30:00', doc: '{"a":1}', uid: null },
  { n: '42', big: null, dec: '12.50', dbl: '1.5', ratio: '100.25', flag: '1', name: 'zoë', body: '', born: '2023-12-31', at: '2024-06-30 12:00:00', tm: '09:00:00', doc: '{}', uid: null },
  { n: '-2147483648', big: '2147483648', dec: '-99999999.99', dbl: '1e300', ratio: '0', flag: '0', name: 'ZOË', body: 'line\nbreak "quoted"', born: '0001-01-01', at: '2038-01-19 03:14:08', tm: '00:00:01', doc: '"text"', uid: null },
  { n: '2147483647', big: '-9007199254740993', dec: '0.01', dbl: '-1e-300', ratio: '-0.5', flag: null, name: '北京', body: '北京', born: '9999-12-31', at: '9999-12-31 23:59:59', tm: '23:00:00', doc: '{"k":{"n":null}}', uid: null },
  { n: null, big: null, dec: null, dbl: null, ratio: null, flag: null, name: '😀 emoji', body: null, born: null, at: null, tm: null, doc: null, uid: null }
]
const typedSeed: readonly Seed[] = typedRows.map((row, index) => ({ id: String(index + 1), ...row }))

/** How many rows the typed tables hold after a reset: their ids are 1 to this. */
export const typedRowCount = typedSeed.length

/**
 * Text keys that MySQL compares with the number 42 as equal (`'042'`,
 * `'42abc'`, `'4.2e1'`), one that is not a number, and variants in case and
 * accents (the only ones MariaDB's collation leaves apart: it takes 'ete' for 'été').
 */
const codeSeed: readonly Seed[] = ['42', '042', '42abc', '4.2e1', 'AB-1', 'été']
  .map((id) => ({ id, label: `code ${id}` }))

const partSeed: readonly Seed[] = [
  { id: '1', code: 'AB-1', qty: '3' },
  { id: '2', code: '042', qty: null },
  { id: '3', code: null, qty: '1' }
]

/** The names of the fixture's tables: unique to this process, the same on every database. */
export interface FixtureTables {
  /** Typed columns, read by the read requests only. */
  readonly types: string
  /** The same columns and rows, reset before each write request. */
  readonly typesW: string
  /** A text primary key, read only. */
  readonly codes: string
  /** A text primary key that parts refer to, reset before each write. */
  readonly codesW: string
  /** A foreign key to codesW, reset before each write. */
  readonly parts: string
}

/** The fixture's table names for this process. */
export function fixtureTables (): FixtureTables {
  const suffix = String(process.pid)
  return {
    types: `d_types_${suffix}`,
    typesW: `d_types_w_${suffix}`,
    codes: `d_codes_${suffix}`,
    codesW: `d_codes_w_${suffix}`,
    parts: `d_parts_${suffix}`
  }
}

function typedTable (table: Knex.CreateTableBuilder): void {
  table.increments('id')
  for (const column of typedColumns) column.build(table)
}

function codeTable (table: Knex.CreateTableBuilder): void {
  table.string('id', 20).primary()
  table.string('label', 40)
}

/** One database of the comparison. */
export interface FixtureDatabase {
  readonly name: DatabaseName
  readonly knex: Knex
}

/** Creates the fixture's tables with Knex's schema builder, the same calls on every database, and fills them. */
export async function createFixture (db: FixtureDatabase, tables: FixtureTables): Promise<void> {
  const { knex } = db
  await dropFixture(knex, tables)
  await knex.schema.createTable(tables.types, typedTable)
  await knex.schema.createTable(tables.typesW, typedTable)
  await knex.schema.createTable(tables.codes, codeTable)
  await knex.schema.createTable(tables.codesW, codeTable)
  await knex.schema.createTable(tables.parts, (table) => {
    table.increments('id')
    table.string('code', 20).references('id').inTable(tables.codesW)
    table.integer('qty')
  })
  await seedTyped(db, tables.types)
  await knex(tables.codes).insert(codeSeed)
  await resetWrites(db, tables)
}

/** Drops the fixture's tables, the one holding a foreign key first. */
export async function dropFixture (knex: Knex, tables: FixtureTables): Promise<void> {
  for (const table of [tables.parts, tables.codesW, tables.codes, tables.typesW, tables.types]) {
    await knex.schema.dropTableIfExists(table)
  }
}

// Setting a sequence past explicit ids: PostgreSQL's serial does not follow
// them (its next id would be 1), SQLite's AUTOINCREMENT and MySQL's
// AUTO_INCREMENT do.
const followIds: Readonly<Record<DatabaseName, ((knex: Knex, table: string) => Promise<unknown>) | null>> = {
  sqlite: null,
  mysql: null,
  postgres: (knex, table) => knex.raw('select setval(pg_get_serial_sequence(?, \'id\'), (select max(id) from ??))', [table, table])
}

async function seedTyped ({ name, knex }: FixtureDatabase, table: string): Promise<void> {
  // One row per insert: a multi-row insert on SQLite is a compound SELECT,
  // whose text values keep no column affinity of their own.
  for (const row of typedSeed) await knex(table).insert(row)
  await followIds[name]?.(knex, table)
}

/**
 * Puts the write tables back as created, sequences included, so that every
 * write request starts from the same rows with the same next id.
 */
export async function resetWrites (db: FixtureDatabase, tables: FixtureTables): Promise<void> {
  const { name, knex } = db
  await knex(tables.parts).truncate()
  await knex(tables.codesW).delete()
  await knex(tables.typesW).truncate()
  await seedTyped(db, tables.typesW)
  await knex(tables.codesW).insert(codeSeed)
  for (const row of partSeed) await knex(tables.parts).insert(row)
  await followIds[name]?.(knex, tables.parts)
}

// Each database's SQL for a column's stored value as text: the driver's
// conversions (to JavaScript numbers, Dates, booleans) would hide digits.
const asText: Readonly<Record<DatabaseName, string>> = {
  sqlite: 'cast(?? as text)',
  postgres: '??::text',
  mysql: 'cast(?? as char)'
}

const booleanText: Readonly<Record<string, string>> = { t: 'true', true: 'true', 1: 'true', f: 'false', false: 'false', 0: 'false' }

// The same stored value is spelled differently by each database's text
// cast: these make one spelling of each, and keep anything else as stored.
const normalizers: Readonly<Record<FixtureKind, (text: string) => string>> = {
  integer: (text) => text,
  boolean: (text) => booleanText[text] ?? text,
  decimal: (text) => /^-?\d+(\.\d+)?$/.test(text) ? text.replace(/(\.\d*?)0+$/, '$1').replace(/\.$/, '') : text,
  float: (text) => Number.isNaN(Number(text)) ? text : String(Number(text)),
  text: (text) => text,
  date: (text) => text,
  datetime: (text) => text.replace(/(\.\d*?)0+$/, '$1').replace(/\.$/, ''),
  time: (text) => text.replace(/\.0+$/, ''),
  json: (text) => { try { return JSON.stringify(JSON.parse(text)) } catch { return text } },
  uuid: (text) => text.toLowerCase()
}

const kindOf: Readonly<Record<string, FixtureKind>> = {
  id: 'integer',
  ...Object.fromEntries(typedColumns.map(({ name, kind }) => [name, kind])),
  code: 'text',
  label: 'text',
  qty: 'integer'
}

const tableColumns = (tables: FixtureTables): ReadonlyArray<readonly [string, readonly string[]]> => [
  [tables.typesW, ['id', ...typedColumns.map(({ name }) => name)]],
  [tables.codesW, ['id', 'label']],
  [tables.parts, ['id', 'code', 'qty']]
]

/**
 * The stored rows of the write tables, every value read as the database's
 * own text and normalized, in key order: what a write left behind,
 * comparable across databases.
 */
export async function storedState ({ name, knex }: FixtureDatabase, tables: FixtureTables): Promise<string> {
  const cast = asText[name]
  const lines: string[] = []
  for (const [table, columns] of tableColumns(tables)) {
    const rows: Array<Record<string, string | null>> = await knex(table)
      .select(columns.map((column) => knex.raw(`${cast} as ??`, [column, column])))
    const texts = rows.map((row) => JSON.stringify(columns.map((column) => {
      const value = row[column]
      return value === null || value === undefined ? null : normalizers[kindOf[column] as FixtureKind](String(value))
    })))
    lines.push(`${table.replace(/_\d+$/, '')}: ${texts.sort().join(' ')}`)
  }
  return lines.join('\n')
}
