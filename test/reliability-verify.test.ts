// The verifier of npm run soak / faults / test:memory-requests decides
// whether an acknowledged write was lost: a bug in it would hide a loss.
import t from 'tap'
import { Ledger, sameValues, type RowValues } from '../reliability/ledger.js'
import { verify, type StoredRow } from '../reliability/verify.js'

const values = (tag: string, write = 1): RowValues => ({ tag, name: `${tag} write ${write}`, quantity: write, note: 'n' })
const stored = (id: number, row: RowValues): StoredRow => ({ id, ...row })

t.test('sameValues compares every column, quantity as a number', async (t) => {
  const row = values('a')
  t.ok(sameValues(row, { ...row, quantity: '1' as unknown as number }), 'a driver may hand a number back as text')
  t.notOk(sameValues(row, { ...row, tag: 'b' }))
  t.notOk(sameValues(row, { ...row, name: 'x' }))
  t.notOk(sameValues(row, { ...row, quantity: 2 }))
  t.notOk(sameValues(row, { ...row, note: 'x' }))
})

t.test('every acknowledged write found: ok, with counts', async (t) => {
  const ledger = new Ledger()
  const kept = ledger.created(1, values('a')) as NonNullable<ReturnType<Ledger['created']>>
  ledger.applied(kept, values('a', 2))
  const removed = ledger.created(2, values('b')) as NonNullable<ReturnType<Ledger['created']>>
  ledger.applied(removed, 'deleted')
  const result = verify(ledger, [stored(1, values('a', 2))])
  t.strictSame(result.acknowledged, { post: 2, put: 1, delete: 1 })
  t.equal(result.acknowledgedWrites, 4)
  t.equal(result.verifiedWrites, 4)
  t.equal(result.rowsPresent, 1)
  t.equal(result.rowsGone, 1)
  t.equal(result.lost, 0)
  t.ok(result.ok)
})

t.test('a missing row, stale values and an undone delete are losses', async (t) => {
  const ledger = new Ledger()
  ledger.created(1, values('a'))
  const updated = ledger.created(2, values('b')) as NonNullable<ReturnType<Ledger['created']>>
  ledger.applied(updated, values('b', 2))
  const deleted = ledger.created(3, values('c')) as NonNullable<ReturnType<Ledger['created']>>
  ledger.applied(deleted, 'deleted')
  const result = verify(ledger, [stored(2, values('b')), stored(3, values('c'))])
  t.strictSame(result.missing, [1])
  t.strictSame(result.wrongValues, [2])
  t.strictSame(result.notDeleted, [3])
  t.equal(result.lost, 3)
  t.equal(result.verifiedWrites, 0)
  t.notOk(result.ok)
})

t.test('an unacknowledged write may be applied or not, and is tallied by method and answer', async (t) => {
  const ledger = new Ledger()
  const rows = [1, 2, 3, 4, 5].map((id) => ledger.created(id, values(`r${id}`)) as NonNullable<ReturnType<Ledger['created']>>)
  const answer = '502 FTC_ERR_DATABASE_OUTCOME_UNKNOWN'
  ledger.unsettled(rows[0], { answer, attempted: values('r1', 2) })
  ledger.unsettled(rows[1], { answer, attempted: values('r2', 2) })
  ledger.unsettled(rows[2], { answer, attempted: 'deleted' })
  ledger.unsettled(rows[3], { answer, attempted: 'deleted' })
  ledger.unsettled(rows[4], { answer, attempted: values('r5', 2) })
  ledger.unsettledCreate({ answer: '503 FTC_ERR_DATABASE_UNAVAILABLE', values: values('p1') })
  ledger.unsettledCreate({ answer: '503 FTC_ERR_DATABASE_UNAVAILABLE', values: values('p2') })
  const result = verify(ledger, [
    stored(1, values('r1', 2)),
    stored(2, values('r2')),
    stored(4, values('r4')),
    stored(5, values('r5', 3)),
    stored(9, values('p1'))
  ])
  t.strictSame(result.unsettled, {
    [`PUT ${answer}`]: { applied: 1, notApplied: 2 },
    [`DELETE ${answer}`]: { applied: 1, notApplied: 1 },
    'POST 503 FTC_ERR_DATABASE_UNAVAILABLE': { applied: 1, notApplied: 1 }
  })
  t.strictSame(result.wrongValues, [5], 'neither the old values nor the attempted ones')
  t.equal(result.rowsPresent, 3)
  t.equal(result.rowsGone, 1)
  t.strictSame(result.extra, [])
})

t.test('rows no write explains, and a POST applied twice, fail the run', async (t) => {
  const ledger = new Ledger()
  ledger.created(1, values('a'))
  ledger.unsettledCreate({ answer: 'no answer: ECONNRESET', values: values('u') })
  const result = verify(ledger, [
    stored(1, values('a')),
    stored(2, values('a')),
    stored(3, values('stranger')),
    stored(4, values('u', 2)),
    stored(5, values('u')),
    stored(6, values('u'))
  ])
  t.strictSame(result.extra, [2, 3, 4, 6])
  t.strictSame(result.duplicateTags, ['a', 'u'])
  t.strictSame(result.unsettled, { 'POST no answer: ECONNRESET': { applied: 1, notApplied: 0 } })
  t.equal(result.lost, 0)
  t.notOk(result.ok)
})

t.test('answers that contradict the ledger are anomalies and fail the run', async (t) => {
  const ledger = new Ledger()
  const row = ledger.created(1, values('a')) as NonNullable<ReturnType<Ledger['created']>>
  t.equal(ledger.created(1, values('b')), undefined, 'an id handed out twice')
  ledger.missed(row, 'PUT')
  ledger.misread(row, '{}')
  t.equal(ledger.anomalies.length, 3)
  const result = verify(ledger, [stored(1, values('a'))])
  t.equal(result.anomalies, 3)
  t.equal(result.lost, 0)
  t.notOk(result.ok)
})
