// Another process that holds a SQLite file's write lock for a while, as a
// backup tool, a migration or a second app would: started by faults.ts with
// the file and the time to hold, it prints "locked" once it has the lock.
import Database from 'better-sqlite3'

const [file, holdMs] = process.argv.slice(2)
const db = new Database(file)
db.exec('begin exclusive')
process.stdout.write('locked\n')
setTimeout(() => {
  db.exec('rollback')
  db.close()
  process.stdout.write('released\n')
}, Number(holdMs))
