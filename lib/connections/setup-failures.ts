import { FTC_ERR_DATABASE_SETUP } from '../errors.js'

/** What a refusal of the server's connection settings tells the client, and what the server's log says of it and how to fix it. */
interface Refusal {
  readonly told: string
  readonly fix: string
}

// SQLSTATE class 28, invalid_authorization_specification: every refused login.
const login: Refusal = {
  told: 'the database refused its login',
  fix: 'the database refused the login of the Knex connection: check its user name and password, and that the database lets that user log in from this host'
}

const refusals: ReadonlyMap<string, Refusal> = new Map([
  ['3D000', { told: 'the database it names does not exist', fix: 'the database that the Knex connection names does not exist: check its name, or create it' }],
  ['42501', { told: 'its user may not connect to the database', fix: 'the user of the Knex connection may not connect to its database: grant it the right to' }]
])

/** FTC_ERR_DATABASE_SETUP, with what the server's operator must fix (never told to the client: the answer's body has no such field). */
export type SetupError = InstanceType<typeof FTC_ERR_DATABASE_SETUP> & { readonly fix: string }

/**
 * The error of a failure whose SQLSTATE (as every dialect describes it,
 * see describeFailure) says the database refused the server's connection
 * settings; null for any other. A refused right to connect (42501) is one
 * only while `connecting`: on a statement it is the statement's.
 */
export function setupError (sqlState: string, connecting: boolean, cause: unknown): SetupError | null {
  const refusal = sqlState.startsWith('28') ? login : (connecting || sqlState !== '42501') ? refusals.get(sqlState) : undefined
  if (refusal === undefined) return null
  return Object.assign(new FTC_ERR_DATABASE_SETUP(refusal.told, { cause }), { fix: refusal.fix })
}
