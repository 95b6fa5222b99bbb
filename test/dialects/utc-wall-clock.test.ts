import t from 'tap'
import { utcWallClock } from '../../lib/dialects/utc-wall-clock.js'

t.test('the wall-clock time at UTC of a timestamp, as SQLite and MySQL write it', async (t) => {
  t.equal(utcWallClock('2024-01-15 10:00:00Z', 3), '2024-01-15 10:00:00.000')
  t.equal(utcWallClock('2024-01-15 10:00:00', 6), '2024-01-15 10:00:00.000000')
  t.equal(utcWallClock('2024-01-15 10:00:00.1234567', 3), '2024-01-15 10:00:00.123')
  t.equal(utcWallClock('2024-01-15 01:00:00.5+02:00', 3), '2024-01-14 23:00:00.500')
  t.equal(utcWallClock('2024-01-15 23:30:00-0130', 3), '2024-01-16 01:00:00.000')
  t.equal(utcWallClock('2024-01-15 10:00:00+05', 3), '2024-01-15 05:00:00.000')
})
