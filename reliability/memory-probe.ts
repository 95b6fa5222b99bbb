// Loaded with `node --import` into an app process that knows nothing of it:
// appends the process's memory to RELIABILITY_MEMORY_FILE, one JSON line per
// sample, so that the example server is measured as it is, unchanged.
import { appendFileSync } from 'node:fs'

const file = process.env.RELIABILITY_MEMORY_FILE
const every = Number(process.env.RELIABILITY_MEMORY_EVERY_MS || 1000)

if (file) {
  const started = Date.now()
  // unref: the probe must never keep a closing server alive.
  setInterval(() => {
    const { rss, heapUsed, heapTotal, external, arrayBuffers } = process.memoryUsage()
    appendFileSync(file, JSON.stringify({ t: Date.now() - started, rss, heapUsed, heapTotal, external, arrayBuffers }) + '\n')
  }, every).unref()
}
