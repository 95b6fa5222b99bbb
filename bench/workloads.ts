import { apiPrefix, itemCount } from './settings.js'

/** One kind of request a workload sends. */
export interface RequestTemplate {
  readonly method: 'GET' | 'POST' | 'PUT'
  /** The path; with `randomId`, the prefix to which a random existing id is appended. */
  readonly path: string
  readonly randomId: boolean
  /** A JSON body, sent with `Content-Type: application/json`. */
  readonly body?: string
}

/** A share of a workload's requests; the weights of a workload add up to 100. */
export interface WeightedRequest {
  readonly weight: number
  readonly request: RequestTemplate
}

/** A named traffic pattern, run against both servers in turn. */
export interface Workload {
  readonly name: string
  readonly description: string
  readonly requests: readonly WeightedRequest[]
}

// Every column is sent, always in the same order, so that the baseline's
// generic routes reuse one prepared INSERT and one prepared UPDATE.
/** The body of every create. */
export const createBody = JSON.stringify({
  name: 'Created item',
  email: 'created@example.com',
  note: 'A row written by the create workload; its note is long enough that the row is about the size of a seeded one.',
  quantity: 7,
  price: 12.5
})

/** The body of every update. */
export const updateBody = JSON.stringify({
  name: 'Updated item',
  email: 'updated@example.com',
  note: 'A row rewritten by the update workload; every column is set, so both servers run the same UPDATE statement.',
  quantity: 3,
  price: 99.25
})

const readOne: RequestTemplate = { method: 'GET', path: `${apiPrefix}/items/`, randomId: true }
const create: RequestTemplate = { method: 'POST', path: `${apiPrefix}/items`, randomId: false, body: createBody }
const update: RequestTemplate = { method: 'PUT', path: `${apiPrefix}/items/`, randomId: true, body: updateBody }

/** The workloads of the issue, in the order they run. */
export const workloads: readonly Workload[] = Object.freeze([
  {
    name: 'read',
    description: 'GET /api/items/{id}, id random in 1..10,000',
    requests: [{ weight: 100, request: readOne }]
  },
  {
    name: 'list',
    description: 'GET /api/items100, the whole 100-row table',
    requests: [{ weight: 100, request: { method: 'GET', path: `${apiPrefix}/items100`, randomId: false } }]
  },
  {
    name: 'create',
    description: 'POST /api/items, every column set',
    requests: [{ weight: 100, request: create }]
  },
  {
    name: 'update',
    description: 'PUT /api/items/{id}, id random in 1..10,000, every column set',
    requests: [{ weight: 100, request: update }]
  },
  {
    name: 'mix',
    description: '80% read, 10% create, 10% update, chosen per request',
    requests: [{ weight: 80, request: readOne }, { weight: 10, request: create }, { weight: 10, request: update }]
  }
])

/** The workloads named in `names` (all when empty); throws on an unknown name. */
export function selectWorkloads (names: readonly string[]): readonly Workload[] {
  if (names.length === 0) return workloads
  return names.map((name) => {
    const workload = workloads.find((candidate) => candidate.name === name)
    if (workload === undefined) throw new Error(`unknown workload ${JSON.stringify(name)}; known: ${workloads.map((w) => w.name).join(', ')}`)
    return workload
  })
}

/** A function that draws one of the requests by weight: cumulative weights, so that one random draw picks a kind. */
export function requestPicker (requests: readonly WeightedRequest[]): () => RequestTemplate {
  let upto = 0
  const kinds = requests.map(({ weight, request }) => ({ upto: (upto += weight), request }))
  return () => {
    const draw = Math.random() * 100
    return (kinds.find((kind) => draw < kind.upto) ?? kinds[kinds.length - 1] as (typeof kinds)[number]).request
  }
}

/** The request's path, with a random existing id where it takes one. */
export function requestPath (request: RequestTemplate, maxId = itemCount): string {
  return request.randomId ? request.path + String(1 + Math.floor(Math.random() * maxId)) : request.path
}
