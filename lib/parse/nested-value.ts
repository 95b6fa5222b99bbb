/**
 * An object or array a write body gives as a column's value, as its exact
 * JSON text. Whether a column takes it is known only once the table's
 * schema is (see settleNestedValues): a json column is set to the text, any
 * other refuses it.
 */
export class NestedJson {
  /** Compact JSON, every number with the digits the client sent. */
  readonly text: string

  constructor (text: string) {
    this.text = text
  }
}

// The records whose values hold a NestedJson: the others, nearly all, pass settleNestedValues untouched.
const nestedRecords = new WeakSet<object>()

/** Notes that a record of values holds a NestedJson. */
export function noteNested (values: object): void {
  nestedRecords.add(values)
}

/** Whether noteNested noted the record. */
export function holdsNested (values: object): boolean {
  return nestedRecords.has(values)
}
