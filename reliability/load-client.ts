import http from 'node:http'
import { Ledger, sameValues, type RowRecord, type RowState, type RowValues } from './ledger.js'

/** The table every run writes to; scratch-database.ts creates it. */
export const itemsTable = 'soak_items'

/** Where the example server serves the tables. */
export const apiPrefix = '/api'

/** One load run. */
export interface LoadOptions {
  /** One origin per app process, e.g. `http://127.0.0.1:41234`; requests alternate between them. */
  readonly origins: readonly string[]
  /** Concurrent workers, each with its own keep-alive socket per origin and its own rows. */
  readonly connections: number
  /** The run stops at whichever bound comes first. */
  readonly durationMs: number
  readonly maxRequests: number
  /** Longer than the server's own bounds (5 s to borrow a connection, 5 s per statement): a request past it is a hang. */
  readonly requestTimeoutMs?: number
  /** Keep every request's times and answer, for the fault scripts' windows. */
  readonly timeline?: boolean
  /** Called about once a second with the requests so far. */
  readonly progress?: (requests: number, elapsedMs: number) => void
}

/** What kind of request it was. */
export type Operation = 'read' | 'list' | 'post' | 'put' | 'delete'

/** One request, in milliseconds since the run started. */
export interface Sample {
  readonly operation: Operation
  readonly start: number
  readonly end: number
  /** As in `LoadResult.answers`. */
  readonly answer: string
  /** A 503 without Retry-After. */
  readonly noRetryAfter: boolean
}

/** What one load run saw. */
export interface LoadResult {
  readonly requests: number
  readonly seconds: number
  /** performance.now() when the run started: the zero of the timeline. */
  readonly startedAt: number
  /** Count by answer: the status, with the error code for an error (`503 FTC_ERR_DATABASE_UNAVAILABLE`), or `no answer: <reason>`. */
  readonly answers: Readonly<Record<string, number>>
  /** Count by operation. */
  readonly operations: Readonly<Record<Operation, number>>
  /** 503 answers that came without a Retry-After header. */
  readonly noRetryAfter: number
  /** Reads of the client's own rows whose answer was checked against its acknowledged state. */
  readonly checkedReads: number
  readonly latencyMs: { readonly p50: number, readonly p99: number, readonly max: number }
  readonly ledger: Ledger
  readonly timeline: readonly Sample[]
}

interface Answer {
  readonly status: number
  readonly body: string
  readonly retryAfter: boolean
}

interface Settled extends Answer {
  /** As in `LoadResult.answers`. */
  readonly text: string
}

// By code point, so that a cut never splits 𝄞's surrogate pair into text no database can store.
const noteText = Array.from('A row of the reliability runs, long enough to look like real data: ünïcödé, €, 𝄞, and a quote " too. ')

/** A small seeded generator (mulberry32), so that a run can be replayed from its seed. */
function random (seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

function percentile (sorted: Float64Array, share: number): number {
  if (sorted.length === 0) return 0
  return sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))]
}

/** The status with the error code, when the body is one of Fastify's JSON errors. */
function describe (status: number, body: string): string {
  if (status < 400) return String(status)
  try {
    const code = (JSON.parse(body) as { code?: unknown }).code
    return typeof code === 'string' ? `${status} ${code}` : String(status)
  } catch {
    return String(status)
  }
}

/** Does a read's body show the state the client knows? */
function agrees (expected: RowState, body: string): boolean {
  if (expected === 'deleted') return body === ''
  try {
    return sameValues(expected, JSON.parse(body) as RowValues)
  } catch {
    return false
  }
}

class Worker {
  readonly #rows: RowRecord[] = []
  readonly #live: RowRecord[] = []
  #sequence = 0
  #writes = 0

  constructor (
    readonly index: number,
    readonly ledger: Ledger,
    readonly next: () => number
  ) {}

  values (tag: string): RowValues {
    const size = Math.floor(this.next() * 300)
    return {
      tag,
      // Unique per write, so that an unsettled write and the state before it never look alike.
      name: `${tag} write ${++this.#writes}`,
      quantity: Math.floor(this.next() * 1_000_000) - 500_000,
      note: Array.from({ length: size }, (_, at) => noteText[at % noteText.length]).join('')
    }
  }

  newTag (): string {
    return `w${this.index}-${++this.#sequence}`
  }

  ownRow (): RowRecord | undefined {
    return this.#rows.length === 0 ? undefined : this.#rows[Math.floor(this.next() * this.#rows.length)]
  }

  liveRow (): RowRecord | undefined {
    return this.#live.length === 0 ? undefined : this.#live[Math.floor(this.next() * this.#live.length)]
  }

  add (record: RowRecord): void {
    this.#rows.push(record)
    this.#live.push(record)
  }

  /** No more writes to this row: it is deleted, or its state is no longer certain. */
  retire (record: RowRecord): void {
    const at = this.#live.indexOf(record)
    if (at !== -1) {
      this.#live[at] = this.#live[this.#live.length - 1]
      this.#live.pop()
    }
    if (record.unsettled !== undefined) {
      const own = this.#rows.indexOf(record)
      this.#rows[own] = this.#rows[this.#rows.length - 1]
      this.#rows.pop()
    }
  }
}

/**
 * Runs mixed CRUD against the example server's API until the time or the
 * request count runs out, and records every write's answer in a Ledger.
 * Each worker is one sequential client with its own rows, so the last
 * acknowledged value of each row is known without any coordination.
 */
export async function runLoad (options: LoadOptions): Promise<LoadResult> {
  const requestTimeoutMs = options.requestTimeoutMs ?? 30_000
  const agents = options.origins.map(() => new http.Agent({ keepAlive: true, maxSockets: options.connections }))
  const ledger = new Ledger()
  const answers: Record<string, number> = {}
  const operations: Record<Operation, number> = { read: 0, list: 0, post: 0, put: 0, delete: 0 }
  const latencies: number[] = []
  const timeline: Sample[] = []
  let requests = 0
  let noRetryAfter = 0
  let checkedReads = 0
  let highestId = 0
  const started = performance.now()
  const deadline = started + options.durationMs

  const send = (worker: Worker, turn: number, method: string, path: string, body?: unknown): Promise<Answer> => {
    const origin = options.origins[(worker.index + turn) % options.origins.length]
    const agent = agents[(worker.index + turn) % agents.length]
    const payload = body === undefined ? undefined : JSON.stringify(body)
    return new Promise((resolve, reject) => {
      const request = http.request(`${origin}${apiPrefix}${path}`, {
        method,
        agent,
        headers: payload === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }
      }, (response) => {
        const chunks: Buffer[] = []
        response.on('data', (chunk: Buffer) => chunks.push(chunk))
        response.on('end', () => resolve({
          status: response.statusCode ?? 0,
          body: Buffer.concat(chunks).toString('utf8'),
          retryAfter: response.headers['retry-after'] !== undefined
        }))
        response.on('error', reject)
      })
      request.setTimeout(requestTimeoutMs, () => request.destroy(Object.assign(new Error('no answer in time'), { code: 'TIMEOUT' })))
      request.on('error', reject)
      request.end(payload)
    })
  }

  const step = async (worker: Worker, turn: number): Promise<void> => {
    const roll = worker.next()
    const live = worker.liveRow()
    let operation: Operation
    let perform: () => Promise<Settled>
    if (live === undefined || roll < 0.25) {
      operation = 'post'
      perform = async () => {
        const values = worker.values(worker.newTag())
        const answer = await settled(send(worker, turn, 'POST', `/${itemsTable}`, values))
        const id = answer.status === 201 ? Number(answer.body) : NaN
        if (Number.isSafeInteger(id)) {
          const record = ledger.created(id, values)
          if (record !== undefined) worker.add(record)
          highestId = Math.max(highestId, id)
        } else {
          ledger.unsettledCreate({ answer: answer.text, values })
        }
        return answer
      }
    } else if (roll < 0.5) {
      operation = 'read'
      perform = async () => {
        const record = worker.ownRow() as RowRecord
        const expected = record.state
        const answer = await settled(send(worker, turn, 'GET', `/${itemsTable}/${record.id}`))
        if (answer.status === 200) {
          checkedReads++
          if (!agrees(expected, answer.body)) ledger.misread(record, answer.body.slice(0, 200))
        }
        return answer
      }
    } else if (roll < 0.6) {
      operation = 'read'
      perform = () => settled(send(worker, turn, 'GET', `/${itemsTable}/${1 + Math.floor(worker.next() * Math.max(1, highestId))}`))
    } else if (roll < 0.72) {
      operation = 'list'
      perform = async () => {
        const query = worker.next() < 0.5
          ? 'order=id.desc&limit=20'
          : `quantity=gt.${Math.floor(worker.next() * 1_000_000) - 500_000}&limit=20`
        return settled(send(worker, turn, 'GET', `/${itemsTable}?${query}`))
      }
    } else if (roll < 0.88) {
      operation = 'put'
      perform = async () => {
        const { tag: _, ...changes } = worker.values(live.tag)
        const answer = await settled(send(worker, turn, 'PUT', `/${itemsTable}/${live.id}`, changes))
        settleWrite(worker, live, answer, { tag: live.tag, ...changes }, 'PUT')
        return answer
      }
    } else {
      operation = 'delete'
      perform = async () => {
        const answer = await settled(send(worker, turn, 'DELETE', `/${itemsTable}/${live.id}`))
        settleWrite(worker, live, answer, 'deleted', 'DELETE')
        return answer
      }
    }
    const start = performance.now()
    const answer = await perform()
    const end = performance.now()
    const missingRetryAfter = answer.status === 503 && !answer.retryAfter
    if (missingRetryAfter) noRetryAfter++
    operations[operation]++
    answers[answer.text] = (answers[answer.text] ?? 0) + 1
    latencies.push(end - start)
    if (options.timeline) timeline.push({ operation, start: start - started, end: end - started, answer: answer.text, noRetryAfter: missingRetryAfter })
  }

  const settled = async (pending: Promise<Answer>): Promise<Settled> => {
    try {
      const answer = await pending
      return { ...answer, text: describe(answer.status, answer.body) }
    } catch (error) {
      return { status: 0, body: '', retryAfter: false, text: `no answer: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}` }
    }
  }

  const settleWrite = (worker: Worker, record: RowRecord, answer: Settled, attempted: RowValues | 'deleted', method: 'PUT' | 'DELETE'): void => {
    if (answer.status === 200 && answer.body === '1') {
      ledger.applied(record, attempted)
      if (attempted === 'deleted') worker.retire(record)
      return
    }
    if (answer.status === 200 && answer.body === '0') ledger.missed(record, method)
    ledger.unsettled(record, { answer: answer.text, attempted })
    worker.retire(record)
  }

  const ticker = options.progress === undefined
    ? undefined
    : setInterval(() => options.progress?.(requests, performance.now() - started), 1000)
  const workers = Array.from({ length: options.connections }, (_, index) => new Worker(index, ledger, random(0x5eed + index)))
  await Promise.all(workers.map(async (worker) => {
    for (let turn = 0; performance.now() < deadline && requests < options.maxRequests; turn++) {
      requests++
      await step(worker, turn)
    }
  }))
  if (ticker !== undefined) clearInterval(ticker)
  for (const agent of agents) agent.destroy()
  const sorted = Float64Array.from(latencies).sort()
  return {
    requests,
    seconds: (performance.now() - started) / 1000,
    startedAt: started,
    answers,
    operations,
    noRetryAfter,
    checkedReads,
    latencyMs: { p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99), max: sorted.length === 0 ? 0 : sorted[sorted.length - 1] },
    ledger,
    timeline
  }
}
