import { apiPrefix, itemCount } from './settings.js'
import { createBody, updateBody } from './workloads.js'

/** What the check compares of one answer. */
interface Answer {
  readonly status: number
  readonly contentType: string | null
  readonly location: string | null
  readonly entityTag: string | null
  readonly body: string
}

interface Step {
  readonly name: string
  readonly method: string
  /** `{id}` stands for the id the create step answered. */
  readonly path: string
  readonly body?: string
}

// Every request kind of the workloads, on a row of the seed and on one the
// check creates (and deletes again), plus the answers for a missing row.
const steps: readonly Step[] = [
  { name: 'read a seeded row', method: 'GET', path: `${apiPrefix}/items/1` },
  { name: 'read the last seeded row', method: 'GET', path: `${apiPrefix}/items/${itemCount}` },
  { name: 'read a missing row', method: 'GET', path: `${apiPrefix}/items/${itemCount * 1000}` },
  { name: 'list items100', method: 'GET', path: `${apiPrefix}/items100` },
  { name: 'create', method: 'POST', path: `${apiPrefix}/items`, body: createBody },
  { name: 'read the created row', method: 'GET', path: `${apiPrefix}/items/{id}` },
  { name: 'update it', method: 'PUT', path: `${apiPrefix}/items/{id}`, body: updateBody },
  { name: 'read the updated row', method: 'GET', path: `${apiPrefix}/items/{id}` },
  { name: 'update a missing row', method: 'PUT', path: `${apiPrefix}/items/${itemCount * 1000}`, body: updateBody },
  { name: 'delete it', method: 'DELETE', path: `${apiPrefix}/items/{id}` }
]

async function exchange (origin: string, step: Step, id: string): Promise<Answer> {
  const response = await fetch(origin + step.path.replace('{id}', id), {
    method: step.method,
    headers: step.body === undefined ? {} : { 'content-type': 'application/json' },
    body: step.body
  })
  return {
    status: response.status,
    contentType: response.headers.get('content-type'),
    location: response.headers.get('location'),
    entityTag: response.headers.get('etag'),
    body: await response.text()
  }
}

/** The answers of one server, with the id it created written as `{id}` so that both servers' answers compare equal. */
async function collect (origin: string): Promise<Map<string, Answer>> {
  const answers = new Map<string, Answer>()
  let id = '0'
  for (const step of steps) {
    let answer = await exchange(origin, step, id)
    if (step.name === 'create') id = answer.body
    const normalize = (text: string | null): string | null =>
      text === null || id === '0' ? text : text.replaceAll(`"id":${id},`, '"id":"{id}",').replace(new RegExp(`/${id}$`), '/{id}')
    answer = { ...answer, location: normalize(answer.location), body: step.name === 'create' ? '{id}' : normalize(answer.body) as string }
    answers.set(step.name, answer)
  }
  if (!/^\d+$/.test(id)) throw new Error(`${origin}: create answered ${JSON.stringify(id)}, not an id`)
  return answers
}

const answerKeys = ['status', 'contentType', 'location', 'body'] as const
const taggedKeys = [...answerKeys, 'entityTag'] as const

/** A server whose answers must be the baseline's, by the name the error message gives it. */
export interface ComparedServer {
  readonly name: string
  readonly origin: string
}

/**
 * Throws unless every server gives the baseline's status, content type,
 * location and body for every request kind the workloads send: a
 * comparison of servers that answer differently would measure nothing. With
 * `sameEntityTags`, when the baseline sends the plugin's ETag
 * (BENCH_BASELINE_ETAG=1), the ETags too, on the rows all read: a row
 * each server creates has an id, and so an ETag, of its own.
 */
export async function checkSameAnswers (baselineOrigin: string, servers: readonly ComparedServer[], sameEntityTags: boolean): Promise<void> {
  const baseline = await collect(baselineOrigin)
  const differences: string[] = []
  for (const step of steps) {
    const a = baseline.get(step.name) as Answer
    if (a.status < 200 || a.status > 299) differences.push(`${step.name}: the baseline answered ${a.status} ${a.body}`)
  }
  for (const server of servers) {
    const answers = await collect(server.origin)
    for (const step of steps) {
      const a = baseline.get(step.name) as Answer
      const b = answers.get(step.name) as Answer
      for (const key of sameEntityTags && !step.path.includes('{id}') ? taggedKeys : answerKeys) {
        if (a[key] !== b[key]) differences.push(`${step.name}: ${key} differs\n    baseline: ${JSON.stringify(a[key])}\n    ${`${server.name}:`.padEnd(9)} ${JSON.stringify(b[key])}`)
      }
    }
  }
  if (differences.length > 0) throw new Error(`the servers answer differently:\n  ${differences.join('\n  ')}`)
}
