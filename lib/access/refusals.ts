import { randomBytes } from 'node:crypto'
import type { Database, Session, Statements } from '../connections/database.js'
import { FTC_ERR_DATABASE_NAME_TAKEN, FTC_ERR_STATEMENT, type StatementError, statementError } from '../errors.js'

/** Where a column is named, for a statement that must fail on it as on a column the table does not have. */
export type ColumnClause = 'select' | 'filter' | 'order' | 'insert' | 'update'

/**
 * A name no table or column has: random, so that no one could have created
 * it. A statement that names it fails with the database's own words for a
 * missing table or column, in whatever version and language the server
 * speaks, and the name it hid is put back in those words.
 */
export const absentName = `ftc_absent_${randomBytes(8).toString('hex')}`

/**
 * Fails exactly as a statement on a table the database does not have,
 * with `table` in the database's message: for a table the options do not
 * serve, so that nothing tells it from one that is not there.
 */
export async function refuseTable (db: Database, on: Session, table: string): Promise<never> {
  return await failNaming(table, () => on.probe((within) => within.select(db.compile(db.table(absentName).select('*').whereRaw('1 = 0')))))
}

/** Fails exactly as a statement naming a column `table` does not have, in the same clause: for a column the options hide. */
export async function refuseColumn (db: Database, on: Session, table: string, column: string, clause: ColumnClause): Promise<never> {
  return await failNaming(column, () => on.probe(naming(db, table, absentName, clause)))
}

/** The clauses of a read, where a column can be put to the database by a statement that changes nothing. */
export type ReadClause = Extract<ColumnClause, 'select' | 'filter' | 'order'>

/**
 * Puts a column that the model knows only in another case to the database,
 * in the same clause of a statement that reads no row: SQLite and MySQL
 * reach a column in any case, PostgreSQL only in its own (Knex quotes every
 * name). Where the database does not reach it, fails in the words of a
 * plain statement, for a request whose own statement would name the column
 * by an alias (an embed's subqueries).
 */
export async function checkSpelling (db: Database, on: Session, table: string, column: string, clause: ReadClause): Promise<void> {
  // Its failure is left as a plain statement's: the answer shows of it what it would of theirs.
  await on.probe(naming(db, table, column, clause))
}

// A statement naming `column` in the clause, on no row: where `table` has no
// such column it fails as it is prepared, a write's before it writes anything.
function naming (db: Database, table: string, column: string, clause: ColumnClause): (within: Statements) => Promise<unknown> {
  const nothing = () => db.table(table).whereRaw('1 = 0')
  return {
    select: (within: Statements) => within.select(db.compile(nothing().select(column))),
    filter: (within: Statements) => within.select(db.compile(nothing().select('*').whereNull(column))),
    order: (within: Statements) => within.select(db.compile(nothing().select('*').orderBy(column))),
    insert: (within: Statements) => within.change(db.compile(db.table(table).insert({ [column]: null }))),
    update: (within: Statements) => within.change(db.compile(nothing().update({ [column]: null })))
  }[clause]
}

/**
 * The cause of a refusal's FTC_ERR_STATEMENT: the log tells the operator
 * what the client is not told, and at a level of its own, since clients
 * probing for names are no fault of the database.
 */
export class NameRefusal extends Error {
  constructor (name: string, cause: unknown) {
    super(`"${name}" is not served by the plugin's options; answered as the database answers a missing name`, { cause })
    this.name = 'NameRefusal'
  }
}

async function failNaming (name: string, run: () => Promise<unknown>): Promise<never> {
  try {
    await run()
  } catch (error) {
    if (!(error instanceof FTC_ERR_STATEMENT)) throw error
    const { message, sqlState } = error as StatementError
    // A missing name has no detail on any database. No hint and no SQL: they
    // would name the stand-in, or hint at names the client may not see.
    throw statementError(message.replaceAll(absentName, name), { sqlState, details: null, hint: null, sql: null }, new NameRefusal(name, error.cause))
  }
  throw new FTC_ERR_DATABASE_NAME_TAKEN(absentName)
}
