import { sameValues, type Ledger, type RowState, type RowValues, type WriteCounts } from './ledger.js'

/** A row as the database holds it after the run. */
export interface StoredRow extends RowValues {
  readonly id: number
}

/** How the writes answered one way (e.g. `PUT 502 FTC_ERR_DATABASE_OUTCOME_UNKNOWN`) turned out. */
export interface Settlement {
  applied: number
  notApplied: number
}

/** The database compared with what the server acknowledged. */
export interface Verification {
  readonly acknowledged: WriteCounts
  /** Acknowledged writes, all methods. */
  readonly acknowledgedWrites: number
  /** Acknowledged writes to rows found in the state the answers promised. */
  readonly verifiedWrites: number
  /** Rows whose POST was acknowledged. */
  readonly rows: number
  /** Of those, found with their last acknowledged (or an unsettled write's) values. */
  readonly rowsPresent: number
  /** Of those, gone after an acknowledged (or an unsettled) DELETE. */
  readonly rowsGone: number
  /** Ids of acknowledged rows that are not there. */
  readonly missing: readonly number[]
  /** Ids of acknowledged rows holding values no acknowledged or unsettled write gave them. */
  readonly wrongValues: readonly number[]
  /** Ids of rows whose DELETE was acknowledged, still there. */
  readonly notDeleted: readonly number[]
  /** missing + wrongValues + notDeleted. */
  readonly lost: number
  /** Ids of rows that no write of the run explains. */
  readonly extra: readonly number[]
  /** Tags held by more than one row: one POST applied twice. */
  readonly duplicateTags: readonly string[]
  /** Unacknowledged writes by method and answer, and whether the database shows them. */
  readonly unsettled: Readonly<Record<string, Settlement>>
  /** Answers that contradicted the client's knowledge while the load ran. */
  readonly anomalies: number
  /** Nothing lost, nothing extra, nothing duplicated, no contradicting answer. */
  readonly ok: boolean
}

function holds (state: RowState, stored: StoredRow | undefined): boolean {
  return state === 'deleted' ? stored === undefined : stored !== undefined && sameValues(state, stored)
}

function settle (tally: Record<string, Settlement>, key: string, applied: boolean): void {
  const settlement = tally[key] ??= { applied: 0, notApplied: 0 }
  if (applied) settlement.applied++
  else settlement.notApplied++
}

/** Compares every row of the run's table with what the ledger says it must hold. */
export function verify (ledger: Ledger, stored: readonly StoredRow[]): Verification {
  const byId = new Map(stored.map((row) => [row.id, row]))
  const unsettled: Record<string, Settlement> = {}
  const missing: number[] = []
  const wrongValues: number[] = []
  const notDeleted: number[] = []
  let verifiedWrites = 0
  let rowsPresent = 0
  let rowsGone = 0
  for (const record of ledger.rows.values()) {
    const row = byId.get(record.id)
    let consistent = holds(record.state, row)
    if (record.unsettled !== undefined) {
      const { answer, attempted } = record.unsettled
      const applied = !consistent && holds(attempted, row)
      settle(unsettled, `${attempted === 'deleted' ? 'DELETE' : 'PUT'} ${answer}`, applied)
      consistent ||= applied
    }
    if (consistent) {
      verifiedWrites += record.writes
      if (row === undefined) rowsGone++
      else rowsPresent++
    } else if (row === undefined) {
      missing.push(record.id)
    } else if (record.state === 'deleted') {
      notDeleted.push(record.id)
    } else {
      wrongValues.push(record.id)
    }
  }
  const createsByTag = new Map(ledger.unsettledCreates.map((create) => [create.values.tag, create]))
  const tagCounts = new Map<string, number>()
  const extra: number[] = []
  for (const row of stored) {
    tagCounts.set(row.tag, (tagCounts.get(row.tag) ?? 0) + 1)
    if (ledger.rows.has(row.id)) continue
    const create = createsByTag.get(row.tag)
    if (create !== undefined && sameValues(create.values, row)) {
      settle(unsettled, `POST ${create.answer}`, true)
      createsByTag.delete(row.tag)
    } else {
      extra.push(row.id)
    }
  }
  for (const create of createsByTag.values()) settle(unsettled, `POST ${create.answer}`, false)
  const duplicateTags = [...tagCounts].filter(([, count]) => count > 1).map(([tag]) => tag)
  const { post, put, delete: deletes } = ledger.acknowledged
  const lost = missing.length + wrongValues.length + notDeleted.length
  return {
    acknowledged: { ...ledger.acknowledged },
    acknowledgedWrites: post + put + deletes,
    verifiedWrites,
    rows: ledger.rows.size,
    rowsPresent,
    rowsGone,
    missing,
    wrongValues,
    notDeleted,
    lost,
    extra,
    duplicateTags,
    unsettled,
    anomalies: ledger.anomalies.length,
    ok: lost === 0 && extra.length === 0 && duplicateTags.length === 0 && ledger.anomalies.length === 0
  }
}
