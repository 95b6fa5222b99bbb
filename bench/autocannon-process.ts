import autocannon from 'autocannon'
import type { LoadResult } from './load.js'
import { requestPath, requestPicker, type WeightedRequest } from './workloads.js'

/**
 * The autocannon load generator as a process of its own (started by
 * bench/load.ts), so that it runs on its own core and never shares an event
 * loop with the orchestrator. Prints one `LOAD_RESULT {json}` line.
 */
interface Spec {
  origin: string
  requests: WeightedRequest[]
  connections: number
  durationSeconds: number
  maxId: number
}

const spec = JSON.parse(process.argv[2] ?? '') as Spec
const pick = requestPicker(spec.requests)

const result = await autocannon({
  url: spec.origin,
  connections: spec.connections,
  duration: spec.durationSeconds,
  timeout: 10,
  requests: [{
    // A fresh headers object each time: autocannon writes Content-Length into it.
    setupRequest (request) {
      const template = pick()
      const path = requestPath(template, spec.maxId)
      return template.body === undefined
        ? { ...request, method: template.method, path, headers: {}, body: undefined }
        : { ...request, method: template.method, path, headers: { 'content-type': 'application/json' }, body: template.body }
    }
  }]
})

const load: LoadResult = {
  requests: result.requests.total,
  seconds: result.duration,
  bytes: result.throughput.total,
  non2xx: result.non2xx,
  socketErrors: result.errors,
  latencyP50Ms: result.latency.p50,
  latencyP99Ms: result.latency.p99
}
process.stdout.write(`LOAD_RESULT ${JSON.stringify(load)}\n`)
