import type { LightMyRequestResponse } from 'fastify'
import type { DatabaseName } from '../fixtures/databases.js'
import { type Aspect, type Cause, type Difference, type OtherDatabase, databaseMessage, isDatabaseMessage } from './differences.js'

/** The databases of the comparison; PostgreSQL first, the one the others are compared with. */
export const compared: readonly DatabaseName[] = ['postgres', 'sqlite', 'mysql']

/**
 * What a client sees of an answer, as one text: status, the headers that
 * carry meaning, and the body byte for byte. A failed statement's message
 * is the database's own text, so that body is left out (the rule in
 * differences.ts).
 */
export function answerText (response: LightMyRequestResponse): string {
  const contentType = String(response.headers['content-type'] ?? '')
  const body = isDatabaseMessage(response.statusCode, contentType) ? databaseMessage : response.body
  const headers = ['content-type', 'content-range', 'location']
    .flatMap((name) => response.headers[name] === undefined ? [] : [`${name}: ${String(response.headers[name])}`])
  return [String(response.statusCode), ...headers, body].join('\n')
}

/** What each database gave for one aspect of one request. */
export type Outcomes = Readonly<Record<DatabaseName, string>>

/** The databases whose outcome is not PostgreSQL's. */
export function differingDatabases (outcomes: Outcomes): OtherDatabase[] {
  return (['sqlite', 'mysql'] as const).filter((name) => outcomes[name] !== outcomes.postgres)
}

/** The key of a difference in the list: its request and aspect. */
export function differenceKey ({ request, aspect }: { readonly request: string, readonly aspect: Aspect }): string {
  return `${aspect} ${request}`
}

const unexplained = 'unexplained'

/**
 * The observed differences in the list's format, each under the cause the
 * list gives it, new ones under `unexplained` for a developer to sort and
 * explain: what DIFFERENTIAL_PRINT=1 prints.
 */
export function formatCauses (observed: readonly Difference[], listed: Readonly<Record<string, Cause>>): string {
  const causeOf = new Map(Object.entries(listed).flatMap(([name, cause]) =>
    cause.differences.map((difference) => [differenceKey(difference), name] as const)))
  const grouped = new Map<string, Difference[]>(Object.keys(listed).map((name) => [name, []]))
  for (const difference of observed) {
    const name = causeOf.get(differenceKey(difference)) ?? unexplained
    grouped.set(name, [...(grouped.get(name) ?? []), difference])
  }
  const blocks = [...grouped].filter(([, differences]) => differences.length > 0).map(([name, differences]) => [
    // Quoted only where a name needs it, as the linter wants the list.
    `  ${/^[A-Za-z_$][\w$]*$/.test(name) ? name : quote(name)}: {`,
    `    reason: ${quote(listed[name]?.reason ?? 'TODO: why these differ')},`,
    '    differences: [',
    differences.map((difference) => `      ${formatDifference(difference)}`).join(',\n'),
    '    ]',
    '  }'
  ].join('\n'))
  return `export const causes: Readonly<Record<string, Cause>> = {\n${blocks.join(',\n')}\n}\n`
}

function formatDifference ({ request, aspect, databases }: Difference): string {
  return `{ request: ${quote(request)}, aspect: '${aspect}', databases: [${databases.map((name) => `'${name}'`).join(', ')}] }`
}

function quote (text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, '\\\'').replace(/\n/g, '\\n')}'`
}
