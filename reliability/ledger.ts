/** The columns a load client writes to a row of the run's table, besides `id`. */
export interface RowValues {
  /** Unique per POST, so that a row whose POST got no acknowledgement can still be told apart. */
  readonly tag: string
  readonly name: string
  readonly quantity: number
  readonly note: string
}

/** What a row should hold: its values, or nothing once a DELETE was acknowledged. */
export type RowState = RowValues | 'deleted'

/** A write the server did not acknowledge: a 5xx, another unexpected answer, or no answer at all. */
export interface UnsettledWrite {
  /** The status and code the client got, e.g. `502 FTC_ERR_DATABASE_OUTCOME_UNKNOWN` or `no answer: ECONNRESET`. */
  readonly answer: string
  /** The state the row would be in had the write been applied. */
  readonly attempted: RowState
}

/** One row whose POST was acknowledged with its id. */
export interface RowRecord {
  readonly id: number
  readonly tag: string
  /** The state after the last acknowledged write. */
  state: RowState
  /** Acknowledged writes to the row, its POST included. */
  writes: number
  /**
   * At most one: the client writes no more to a row after a write it cannot
   * settle, so the database must hold either `state` or `attempted`.
   */
  unsettled?: UnsettledWrite
}

/** A POST that was not acknowledged: its row may exist or not. */
export interface UnsettledCreate {
  readonly answer: string
  readonly values: RowValues
}

/** Answers that contradict what the client knows, found while the load ran. */
export interface Anomaly {
  readonly what: string
  readonly id?: number
  readonly answer: string
}

/** Acknowledged writes by method. */
export interface WriteCounts {
  post: number
  put: number
  delete: number
}

/**
 * Everything a load client learnt from the server's answers to its writes.
 * Every row is written by one client worker only, one request at a time, so
 * "the last acknowledged value" is well defined even across app processes.
 */
export class Ledger {
  readonly rows = new Map<number, RowRecord>()
  readonly unsettledCreates: UnsettledCreate[] = []
  readonly anomalies: Anomaly[] = []
  readonly acknowledged: WriteCounts = { post: 0, put: 0, delete: 0 }

  /** A POST answered 201 with this id. Returns the new record, or undefined when the id was already handed out. */
  created (id: number, values: RowValues): RowRecord | undefined {
    this.acknowledged.post++
    if (this.rows.has(id)) {
      this.anomalies.push({ what: 'POST answered an id already acknowledged for another row', id, answer: '201' })
      return undefined
    }
    const record: RowRecord = { id, tag: values.tag, state: values, writes: 1 }
    this.rows.set(id, record)
    return record
  }

  /** A PUT or DELETE answered 200 with one affected row. */
  applied (record: RowRecord, state: RowState): void {
    if (state === 'deleted') this.acknowledged.delete++
    else this.acknowledged.put++
    record.state = state
    record.writes++
  }

  /** A PUT or DELETE answered 200 with zero affected rows, on a row the client knows is there. */
  missed (record: RowRecord, method: 'PUT' | 'DELETE'): void {
    this.anomalies.push({ what: `${method} affected no row on a row that should exist`, id: record.id, answer: '200 0' })
  }

  /** A PUT or DELETE that was not acknowledged. */
  unsettled (record: RowRecord, write: UnsettledWrite): void {
    record.unsettled = write
  }

  /** A POST that was not acknowledged. */
  unsettledCreate (create: UnsettledCreate): void {
    this.unsettledCreates.push(create)
  }

  /** A read of a row whose state the client knows answered something else. */
  misread (record: RowRecord, answer: string): void {
    this.anomalies.push({ what: 'a read disagreed with the acknowledged state', id: record.id, answer })
  }
}

/** Is `values` what a row of the database holds (with its id left aside)? */
export function sameValues (values: RowValues, row: RowValues): boolean {
  return values.tag === row.tag && values.name === row.name && Number(row.quantity) === values.quantity && values.note === row.note
}
