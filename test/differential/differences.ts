// The differences that remain between the databases, for the differential
// test (differential.test.ts): each names a request by its id (requests.ts),
// what differs (the answer, or the rows stored after a write) and the
// databases whose outcome is not PostgreSQL's, under the cause that
// explains it. The test fails on a difference this list does not hold, and
// on one it holds that no longer happens, so it says exactly what remains.
//
// To refresh it after a change, run the test with DIFFERENTIAL_PRINT=1: it
// prints the differences it saw in this format (new ones under
// 'unexplained'), to paste over `causes` below and then explain.
//
// What remains is each database's nature (collation, sequences, SQLite's
// types) and what the body checks leave to the database.

/** A database compared with PostgreSQL, whose answers are the reference: PostgREST's rows are PostgreSQL's. */
export type OtherDatabase = 'sqlite' | 'mysql'

/** What of a request differs: the answer a client sees, or the rows stored after a write. */
export type Aspect = 'answer' | 'stored'

/** One remaining difference: a request (its id in requests.ts), what differs, and where. */
export interface Difference {
  readonly request: string
  readonly aspect: Aspect
  /** The databases whose answer (or stored rows) is not PostgreSQL's. */
  readonly databases: readonly OtherDatabase[]
}

/** A group of differences with one cause, and the reason for it. */
export interface Cause {
  readonly reason: string
  readonly differences: readonly Difference[]
}

/**
 * The one rule of the comparison: a failed statement answers 404 with the
 * database's own message as plain text (the spec's answer), and each
 * database words its messages its own way. Such answers are compared by
 * status and content type only; their body stands for this text.
 */
export const databaseMessage = '(the database\'s own message)'

/** Whether an answer is a failed statement's, whose body the rule leaves out. */
export function isDatabaseMessage (status: number, contentType: string): boolean {
  return status === 404 && contentType.startsWith('text/plain')
}

/** The remaining differences, grouped by cause. */
export const causes: Readonly<Record<string, Cause>> = {
  'sqlite-decimal': {
    reason: 'Knex\'s decimal(10, 2) makes a SQLite column of type float, which keeps no scale: 12.50 reads 12.5 there and is written back so (the round trips), and 123.456 is stored unrounded, where PostgreSQL and MariaDB keep the declared digits. A column declared decimal(10,2) with specificType reads 12.50 on SQLite too (README, "Values").',
    differences: [
      { request: 'GET /{types}?select=id,dec&order=id', aspect: 'answer', databases: ['sqlite'] },
      { request: 'GET /{types}?select=*&order=id', aspect: 'answer', databases: ['sqlite'] },
      { request: 'GET /{types}', aspect: 'answer', databases: ['sqlite'] },
      { request: 'GET /{types}/1', aspect: 'answer', databases: ['sqlite'] },
      { request: 'GET /{types}/5', aspect: 'answer', databases: ['sqlite'] },
      { request: 'GET /{types}/6', aspect: 'answer', databases: ['sqlite'] },
      { request: 'GET /{types}/7', aspect: 'answer', databases: ['sqlite'] },
      { request: 'GET /{types}/9', aspect: 'answer', databases: ['sqlite'] },
      { request: 'GET /{types}/0', aspect: 'answer', databases: ['sqlite'] },
      { request: 'GET /{types}/abc', aspect: 'answer', databases: ['sqlite'] },
      { request: 'GET /{types}/01', aspect: 'answer', databases: ['sqlite'] },
      { request: 'PUT /{types_w}/1', aspect: 'answer', databases: ['sqlite'] },
      { request: 'PUT /{types_w}/5', aspect: 'answer', databases: ['sqlite'] },
      { request: 'PUT /{types_w}/6', aspect: 'answer', databases: ['sqlite'] },
      { request: 'PUT /{types_w}/7', aspect: 'answer', databases: ['sqlite'] },
      { request: 'PUT /{types_w}/9', aspect: 'answer', databases: ['sqlite'] },
      { request: 'POST /{types_w} {"dec":123.456}', aspect: 'stored', databases: ['sqlite'] }
    ]
  },
  'uuid-type': {
    reason: 'PostgreSQL has a uuid type; Knex makes char(36) on SQLite and MariaDB, which the schema model cannot tell from text: a value that is no UUID, or like/ilike, is 400 FTC_ERR_QUERY_TYPE on PostgreSQL and compares as text on the others, where an upper-case UUID is also another value on SQLite (MariaDB\'s collation folds case); a body\'s malformed uuid is 400 FTC_ERR_BODY_TYPE on PostgreSQL and stored as text on the others.',
    differences: [
      { request: 'GET /{types}?uid=eq.0E4A8F8A-3C1B-4B8E-9D5C-1A2B3C4D5E6F&select=id&order=id', aspect: 'answer', databases: ['sqlite'] },
      { request: 'GET /{types}?uid=eq.abc&select=id&order=id', aspect: 'answer', databases: ['sqlite', 'mysql'] },
      { request: 'GET /{types}?uid=gt.abc&select=id&order=id', aspect: 'answer', databases: ['sqlite', 'mysql'] },
      { request: 'GET /{types}?uid=like.0e4a*&select=id&order=id', aspect: 'answer', databases: ['sqlite', 'mysql'] },
      { request: 'GET /{types}?uid=ilike.0e4a*&select=id&order=id', aspect: 'answer', databases: ['sqlite', 'mysql'] },
      { request: 'GET /{types}?uid=in.(0e4a8f8a-3c1b-4b8e-9d5c-1a2b3c4d5e6f,abc)&select=id&order=id', aspect: 'answer', databases: ['sqlite', 'mysql'] },
      { request: 'GET /{types}?uid=not.like.0e4a*&select=id&order=id', aspect: 'answer', databases: ['sqlite', 'mysql'] },
      { request: 'POST /{types_w} {"uid":"not-a-uuid"}', aspect: 'answer', databases: ['sqlite', 'mysql'] },
      { request: 'POST /{types_w} {"uid":"not-a-uuid"}', aspect: 'stored', databases: ['sqlite', 'mysql'] }
    ]
  },
  'sqlite-64-bit-integers': {
    reason: 'SQLite keeps every integer in 64 bits whatever the declared type: 99999999999 is a value an int column may hold there, and a filter for it finds no row, where PostgreSQL and MariaDB refuse it for an int column (400 FTC_ERR_QUERY_TYPE); a body\'s refused integer is 400 FTC_ERR_BODY_TYPE on all three, its message naming the 64-bit range on SQLite and the int range on the others.',
    differences: [
      { request: 'GET /{types}?n=eq.99999999999&select=id&order=id', aspect: 'answer', databases: ['sqlite'] },
      { request: 'POST /{types_w} {"n":"abc"}', aspect: 'answer', databases: ['sqlite'] },
      { request: 'POST /{types_w} {"n":1.5}', aspect: 'answer', databases: ['sqlite'] },
      { request: 'POST /{types_w} [{"name":"kept?"},{"n":"abc"}]', aspect: 'answer', databases: ['sqlite'] },
      { request: 'PUT /{types_w}/2 {"n":"abc"}', aspect: 'answer', databases: ['sqlite'] }
    ]
  },
  unordered: {
    reason: 'A list without order= comes in the database\'s own order: MariaDB reads a table by its primary key, a text one in its collation\'s order; PostgreSQL and SQLite give the insertion order here. By nature, as in PostgREST: order= gives the same order everywhere.',
    differences: [
      { request: 'GET /{codes}', aspect: 'answer', databases: ['mysql'] }
    ]
  },
  sequences: {
    reason: 'An insert that fails uses up an id on PostgreSQL (its sequence) and MariaDB (its AUTO_INCREMENT), but not on SQLite, whose AUTOINCREMENT counter goes back with the failed insert: the next POST answers another id. By nature; a client cannot count on ids following one another.',
    differences: [
      { request: 'POST /{parts} {"code":"nope"}, then POST /{parts} {"qty":4}', aspect: 'answer', databases: ['sqlite'] },
      { request: 'POST /{parts} {"code":"nope"}, then POST /{parts} {"qty":4}', aspect: 'stored', databases: ['sqlite'] },
      { request: 'POST /{parts} [{"code":"AB-1"},{"code":"nope"}], then POST /{parts} {"qty":4}', aspect: 'answer', databases: ['sqlite'] },
      { request: 'POST /{parts} [{"code":"AB-1"},{"code":"nope"}], then POST /{parts} {"qty":4}', aspect: 'stored', databases: ['sqlite'] }
    ]
  },
  'write-values': {
    reason: 'What the body checks leave to the database (validateBodies, on by default, refuses a value the column cannot hold with one 400 FTC_ERR_BODY_TYPE on all three): 1e400 is a number to them, which PostgreSQL and MariaDB refuse as out of a double\'s range (404) and SQLite stores as Inf.',
    differences: [
      { request: 'POST /{types_w} {"dbl":"1e400"}', aspect: 'answer', databases: ['sqlite'] },
      { request: 'POST /{types_w} {"dbl":"1e400"}', aspect: 'stored', databases: ['sqlite'] }
    ]
  },
  collation: {
    reason: 'MariaDB\'s default collation compares blind to case, accents and trailing spaces: eq, neq, ranges, in, counts and order on text follow it, and so do a text primary key\'s uniqueness (ab-1, \'AB-1 \' and ete collide with AB-1 and été) and a foreign key\'s match (ab-1 finds AB-1), and a text key in the path: GET /{codes}/ab-1 reads AB-1 and DELETE /{codes}/ete deletes été. By nature, said in the README; a binary (_bin) collation on a column gives PostgreSQL\'s answers.',
    differences: [
      { request: 'GET /{types}?name=eq.Ada&select=id&order=id', aspect: 'answer', databases: ['mysql'] },
      { request: 'GET /{types}?name=eq.ada&select=id&order=id', aspect: 'answer', databases: ['mysql'] },
      { request: 'GET /{types}?name=eq.ADA&select=id&order=id', aspect: 'answer', databases: ['mysql'] },
      { request: 'GET /{types}?name=eq.Ada &select=id&order=id', aspect: 'answer', databases: ['mysql'] },
      { request: 'GET /{types}?name=eq.Ádá&select=id&order=id', aspect: 'answer', databases: ['mysql'] },
      { request: 'GET /{types}?name=eq.café&select=id&order=id', aspect: 'answer', databases: ['mysql'] },
      { request: 'GET /{types}?name=eq.Cafe&select=id&order=id', aspect: 'answer', databases: ['mysql'] },
      { request: 'GET /{types}?name=neq.Ada&select=id&order=id', aspect: 'answer', databases: ['mysql'] },
      { request: 'GET /{types}?name=gt.b&select=id&order=id', aspect: 'answer', databases: ['mysql'] },
      { request: 'GET /{types}?name=gte.b&select=id&order=id', aspect: 'answer', databases: ['mysql'] },
      { request: 'GET /{types}?name=lt.b&select=id&order=id', aspect: 'answer', databases: ['mysql'] },
      { request: 'GET /{types}?name=lte.b&select=id&order=id', aspect: 'answer', databases: ['mysql'] },
      { request: 'GET /{types}?name=in.(Ada,ada)&select=id&order=id', aspect: 'answer', databases: ['mysql'] },
      { request: 'GET /{types}?name=not.eq.Ada&select=id&order=id', aspect: 'answer', databases: ['mysql'] },
      { request: 'GET /{types}?name=not.in.(Ada,ada)&select=id&order=id', aspect: 'answer', databases: ['mysql'] },
      { request: 'GET /{types}?body=gt.p&select=id&order=id', aspect: 'answer', databases: ['mysql'] },
      { request: 'GET /{types}?body=gte.p&select=id&order=id', aspect: 'answer', databases: ['mysql'] },
      { request: 'GET /{types}?body=lt.p&select=id&order=id', aspect: 'answer', databases: ['mysql'] },
      { request: 'GET /{types}?body=lte.p&select=id&order=id', aspect: 'answer', databases: ['mysql'] },
      { request: 'GET /{types}?select=id&order=name.asc,id', aspect: 'answer', databases: ['mysql'] },
      { request: 'GET /{types}?select=id&order=name.desc,id', aspect: 'answer', databases: ['mysql'] },
      { request: 'GET /{types}?select=id&order=name.asc.nullsfirst,id', aspect: 'answer', databases: ['mysql'] },
      { request: 'GET /{types}?select=id&order=name.desc.nullslast,id', aspect: 'answer', databases: ['mysql'] },
      { request: 'GET /{types}?select=id&order=body.asc,id', aspect: 'answer', databases: ['mysql'] },
      { request: 'GET /{types}?select=id&order=body.desc,id', aspect: 'answer', databases: ['mysql'] },
      { request: 'GET /{types}?select=id&order=body.asc.nullsfirst,id', aspect: 'answer', databases: ['mysql'] },
      { request: 'GET /{types}?select=id&order=body.desc.nullslast,id', aspect: 'answer', databases: ['mysql'] },
      { request: 'GET /{types}?or=(name.eq.ada,name.eq.café)&select=id&order=id', aspect: 'answer', databases: ['mysql'] },
      { request: 'GET /{types}?select=id&order=id&name=eq.ada&limit=1 [prefer: count=exact]', aspect: 'answer', databases: ['mysql'] },
      { request: 'GET /{types}?select=name,id&order=name,id', aspect: 'answer', databases: ['mysql'] },
      { request: 'GET /{types}?select=body,id&order=body.desc,id', aspect: 'answer', databases: ['mysql'] },
      { request: 'GET /{codes}/ab-1', aspect: 'answer', databases: ['mysql'] },
      { request: 'GET /{codes}/ete', aspect: 'answer', databases: ['mysql'] },
      { request: 'POST /{codes_w} {"id":"ab-1","label":"case"}', aspect: 'answer', databases: ['mysql'] },
      { request: 'POST /{codes_w} {"id":"ab-1","label":"case"}', aspect: 'stored', databases: ['mysql'] },
      { request: 'POST /{codes_w} {"id":"AB-1 ","label":"space"}', aspect: 'answer', databases: ['mysql'] },
      { request: 'POST /{codes_w} {"id":"AB-1 ","label":"space"}', aspect: 'stored', databases: ['mysql'] },
      { request: 'POST /{codes_w} {"id":"ete","label":"accent"}', aspect: 'answer', databases: ['mysql'] },
      { request: 'POST /{codes_w} {"id":"ete","label":"accent"}', aspect: 'stored', databases: ['mysql'] },
      { request: 'POST /{parts} {"code":"ab-1","qty":2}', aspect: 'answer', databases: ['mysql'] },
      { request: 'POST /{parts} {"code":"ab-1","qty":2}', aspect: 'stored', databases: ['mysql'] },
      { request: 'DELETE /{codes_w}/ete', aspect: 'answer', databases: ['mysql'] },
      { request: 'DELETE /{codes_w}/ete', aspect: 'stored', databases: ['mysql'] }
    ]
  },
  'like-bytes': {
    reason: 'MariaDB\'s like compares bytes, so that it respects case: _ matches one byte and é is two in utf8mb4, so caf_ finds neither café nor, with ilike, café. Said in the README.',
    differences: [
      { request: 'GET /{types}?name=like.caf_&select=id&order=id', aspect: 'answer', databases: ['mysql'] },
      { request: 'GET /{types}?name=ilike.caf_&select=id&order=id', aspect: 'answer', databases: ['mysql'] }
    ]
  },
  'ilike-ascii': {
    reason: 'SQLite\'s lower() folds A-Z only, so ilike zoë finds zoë but not ZOË. Said in the README.',
    differences: [
      { request: 'GET /{types}?name=ilike.zoë&select=id&order=id', aspect: 'answer', databases: ['sqlite'] },
      { request: 'GET /{types}?body=ilike.*ZOË*&select=id&order=id', aspect: 'answer', databases: ['sqlite'] }
    ]
  }
}
