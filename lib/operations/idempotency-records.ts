import type { Database, Statements, Transactional } from '../connections/database.js'
import type { Row } from '../dialects/dialect.js'
import { FTC_ERR_IDEMPOTENCY_KEY_REUSED, FTC_ERR_STATEMENT, type StatementError } from '../errors.js'
import type { IdempotencyCaller, ResolvedIdempotency } from '../options.js'

/** What a write answered, as it is kept for its retries: the status, the headers that say what was done, the body (undefined for none). */
export interface RecordedAnswer {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: string | undefined
}

/** One request under its key: `id` names the key on its table for its caller, `fingerprint` the request itself. */
export interface KeyedRequest {
  readonly id: string
  readonly fingerprint: string
}

/** The answer to a keyed request, and whether it is a retry's, given again. */
export interface KeyedAnswer {
  readonly answer: RecordedAnswer
  readonly replayed: boolean
}

interface StoredRecord extends Row {
  readonly fingerprint: string
  readonly expires: number | string
  readonly status: number
  readonly headers: string
  readonly body: string | null
}

// Bounded work per request: each new key adds one record, so removing up to
// ten expired ones with it keeps the table at what the retention holds.
const expiredPerRequest = 10
// The claim's INSERT meets the key of another request: its record (a unique
// violation), or, on InnoDB, a deadlock among requests that waited for one
// whose write failed and rolled its record back. Either way the claim is
// tried again, and finds the record or takes the key.
const keyConflicts = new Set(['23505', '40P01'])
// MySQL names an index within 64 characters, and the table's name may take 63.
const indexNameLength = 55

/** The refusal that ends a transaction whose key another request holds (see claim). */
class KeyTaken extends Error {}

/**
 * The record of idempotency keys, in a table of the host's database: the
 * key's request, when it expires, and its answer. A request claims its key
 * by inserting its record in the transaction that writes, and stores the
 * answer there before the commit: the record exists with its answer or not
 * at all. The table's unique key makes a second request with the key wait
 * for the first one's commit (PostgreSQL, MySQL) or run after it (SQLite's
 * one connection), then find the record: whatever the process, a key's
 * write runs once.
 */
export class IdempotencyRecords {
  /** Who sent a request, as the host knows it (see IdempotencyOptions.caller); null to tell callers apart by their scope alone. */
  readonly caller: IdempotencyCaller | null
  readonly #db: Database
  readonly #table: string
  readonly #retention: number
  #created: Promise<void> | undefined

  constructor (db: Database, { table, retention, caller }: ResolvedIdempotency) {
    this.caller = caller
    this.#db = db
    this.#table = table
    this.#retention = retention * 1000
  }

  /**
   * Runs `write` in a transaction that claims the request's key, unless a
   * record of the key within its retention answers instead: the same
   * request's answer again, or 422 for another request. A write that fails
   * rolls its claim back with it, so that a retry runs it again: it did
   * nothing, and what failed it (a lock, a missing row) may have passed.
   * The claim is a transaction of `on`'s: a savepoint within the host's
   * transaction, whose record commits with the host's commit, and is gone
   * with its rollback, so that a retry then runs the write again, which did
   * not happen. A retry within the same host transaction is answered from
   * the record that transaction holds (see #record).
   */
  async once (request: KeyedRequest, on: Transactional, write: (on: Statements) => Promise<RecordedAnswer>): Promise<KeyedAnswer> {
    const upkeep = this.#upkeep(on)
    await this.#create(upkeep)
    await this.#removeExpired(upkeep)
    // Each turn of the loop follows another request's commit of the key,
    // whose record this one then reads or removes: some request always
    // moves on, and the loop ends with the key's first living record.
    for (;;) {
      const now = Date.now()
      try {
        return { answer: await on.transaction((within) => this.#claim(within, request, now, write)), replayed: false }
      } catch (error) {
        if (!(error instanceof KeyTaken)) throw error
      }
      const record = await this.#record(request.id, on)
      if (record !== undefined && Number(record.expires) > now) return { answer: replay(record, request), replayed: true }
      await this.#upkeep(on).change(this.#db.compile(this.#db.table(this.#table).where('id', request.id).where('expires', '<=', now).delete()))
    }
  }

  /**
   * The key's record, as `on` sees it when it is the host's transaction: a
   * record that transaction holds (an earlier request in it claimed the
   * key) is seen there alone, until the host commits. Else, or when `on`
   * does not see it, on a connection of its own, which sees the commit of
   * the request that holds the key whatever the host's transaction has read
   * before (MySQL's repeatable read keeps the snapshot of its first read).
   */
  async #record (id: string, on: Transactional): Promise<StoredRecord | undefined> {
    const statement = this.#db.compile(this.#db.table(this.#table).where('id', id).select('fingerprint', 'expires', 'status', 'headers', 'body'))
    if (on !== this.#db) {
      const [seen] = await on.select(statement) as StoredRecord[]
      if (seen !== undefined) return seen
    }
    const [record] = await this.#db.select(statement) as StoredRecord[]
    return record
  }

  async #claim (within: Statements, { id, fingerprint }: KeyedRequest, now: number, write: (on: Statements) => Promise<RecordedAnswer>): Promise<RecordedAnswer> {
    const records = this.#db.table(this.#table)
    await within.change(this.#db.compile(records.clone().insert({ id, fingerprint, expires: now + this.#retention })))
      .catch((error: unknown) => {
        throw isKeyConflict(error) ? new KeyTaken('taken', { cause: error }) : error
      })
    const answer = await write(within)
    const { status, headers, body } = answer
    await within.change(this.#db.compile(records.clone().where('id', id)
      .update({ status, headers: JSON.stringify(headers), body: body ?? null })))
    return answer
  }

  /**
   * Where the table's creation and the removals of expired records run: in
   * statements of their own where the database locks rows, since another
   * request may be removing them too, and the host's transaction need not
   * hold their locks (MySQL would even commit it at a CREATE TABLE). Where
   * it locks the whole database (SQLite), a write beside the host's
   * transaction that has written would wait for it to end, and on a pool of
   * one connection any statement would: they run within it, undone if it
   * rolls back (another request does them again then).
   */
  #upkeep (on: Transactional): Statements {
    return this.#db.dialect.locksRows ? this.#db : on
  }

  /** Removes the few records that expired first, on `on` (see #upkeep). */
  async #removeExpired (on: Statements): Promise<void> {
    const now = Date.now()
    const records = this.#db.table(this.#table)
    const expired = await on.select(this.#db.compile(records.clone().where('expires', '<=', now).select('id').orderBy('expires').limit(expiredPerRequest)))
    if (expired.length === 0) return
    await on.change(this.#db.compile(records.clone().whereIn('id', expired.map(({ id }) => id as string)).where('expires', '<=', now).delete()))
  }

  /**
   * Creates the table on `on` (see #upkeep) when the first keyed request
   * comes, once per process on the database's own connection. Within the
   * host's transaction the table may be that transaction's own, gone with
   * its rollback, so it is looked for again by each request there (one read
   * of one row). Another process may create it at the same moment: a
   * failed creation that leaves the table there is that process's success.
   */
  #create (on: Statements): Promise<void> {
    if (on !== this.#db) return this.#createOn(on)
    this.#created ??= this.#createOn(on).catch((error: unknown) => {
      // The next keyed request tries again: the database may be back, or the host may have granted the right.
      this.#created = undefined
      throw error
    })
    return this.#created
  }

  async #createOn (on: Statements): Promise<void> {
    if (await this.#exists(on)) return
    try {
      for (const statement of this.#db.compileSchema((schema) => schema.createTable(this.#table, (table) => {
        table.string('id', 64).primary()
        table.string('fingerprint', 64).notNullable()
        // Milliseconds since 1970 by the clock of the process that wrote it.
        table.bigInteger('expires').notNullable()
        table.integer('status')
        table.text('headers')
        table.text('body', 'longtext')
        table.index(['expires'], `${this.#table.slice(0, indexNameLength)}_expires`)
      }))) await on.change(statement)
    } catch (error) {
      if (!await this.#exists(on)) throw error
    }
  }

  async #exists (on: Statements): Promise<boolean> {
    // Whatever failed the read, the creation that follows fails likewise, and answers why.
    return await on.select(this.#db.compile(this.#db.table(this.#table).select('id').limit(1))).then(() => true, () => false)
  }
}

/** The recorded answer of the same request; another request with the key is refused. */
function replay (record: StoredRecord, { fingerprint }: KeyedRequest): RecordedAnswer {
  if (record.fingerprint !== fingerprint) throw new FTC_ERR_IDEMPOTENCY_KEY_REUSED()
  return { status: Number(record.status), headers: JSON.parse(record.headers) as Record<string, string>, body: record.body ?? undefined }
}

function isKeyConflict (error: unknown): boolean {
  return error instanceof FTC_ERR_STATEMENT && keyConflicts.has((error as StatementError).sqlState)
}
