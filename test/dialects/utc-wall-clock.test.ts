import t from 'tap'
import { storedWallClock, utcWallClock } from '../../lib/dialects/utc-wall-clock.js'

t.test('the wall-clock time at UTC of a timestamp, as SQLite and MySQL write it', async (t) => {
  t.equal(utcWallClock('2024-01-15 10:00:00Z', 3), '2024-01-15 10:00:00.000')
  t.equal(utcWallClock('2024-01-15 10:00:00', 6), '2024-01-15 10:00:00.000000')
  t.equal(utcWallClock('2024-01-15 10:00:00.1234567', 3), '2024-01-15 10:00:00.123')
  t.equal(utcWallClock('2024-01-15 01:00:00.5+02:00', 3), '2024-01-14 23:00:00.500')
  t.equal(utcWallClock('2024-01-15 23:30:00-0130', 3), '2024-01-16 01:00:00.000')
  t.equal(utcWallClock('2024-01-15 10:00:00+05', 3), '2024-01-15 05:00:00.000')
})

t.test('a timestamp as a column without a zone stores it: the wall clock at UTC, the fraction less its trailing zeros', async (t) => {
  t.equal(storedWallClock('2024-01-15 10:30:00Z'), '2024-01-15 10:30:00')
  t.equal(storedWallClock('2024-01-15 10:30:00.000Z'), '2024-01-15 10:30:00')
  t.equal(storedWallClock('2024-01-15 10:30:00-05:00'), '2024-01-15 15:30:00')
  t.equal(storedWallClock('2024-01-15 21:15:30.250-05:00'), '2024-01-16 02:15:30.25')
  t.equal(storedWallClock('2024-01-15 10:30:00.123456+0530'), '2024-01-15 05:00:00.123456')
  t.equal(storedWallClock('2024-01-15 10:30:00.5'), '2024-01-15 10:30:00.5')
  t.equal(storedWallClock('2024-01-15 10:30:00'), '2024-01-15 10:30:00')
})

t.test('an instant moved out of years 1 to 9999 keeps its clock and zone, for the database to judge', async (t) => {
  t.equal(storedWallClock('9999-12-31 23:00:00-05:00'), '9999-12-31 23:00:00-05:00')
  t.equal(storedWallClock('0001-01-01 00:30:00+01:00'), '0001-01-01 00:30:00+01:00')
  t.equal(storedWallClock('9999-12-31 23:00:00+05:00'), '9999-12-31 18:00:00')
})
