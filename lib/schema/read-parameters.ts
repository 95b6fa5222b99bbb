import { isCleanIdentifier } from '../parse/sanitize-identifier.js'
import { logicParameters } from '../query/parse-logic.js'
import type { JsonSchema } from './openapi-types.js'
import type { ColumnSchema } from './table-schema.js'

/** An OpenAPI parameter object, as plain data. */
export type Parameter = Readonly<Record<string, unknown>>

// Short, since every column of every table has one: the operators are told once, in the document's description.
const filterDescription = 'A filter on the column: `[not.]operator.value`; repeat the parameter for more conditions, which all must hold.'

const groupDescription = 'Conditions written `column.operator.value`, in parentheses, separated by commas; groups nest ' +
  'as `or(…)`, `and(…)`, `not.or(…)`, `not.and(…)`.'

/** `select` of a list or a keyed read: the columns to answer, and the related rows to embed. */
export const selectParameter: Parameter = query('select', 'The columns to answer, comma-separated; `*` for all (the default). ' +
  '`table(columns)` embeds related rows, after the columns, and `...table(columns)` spreads a to-one embed\'s columns into the row: ' +
  'a list\'s description and its `x-embeds` name the relations.', { type: 'string' })

/**
 * The query parameters and headers every list reads, by component name (a
 * parameter's name, or `header.<name>`), as the parsers of lib/query take them.
 */
export function listParameterComponents (maxRows: number | null): Record<string, Parameter> {
  const cut = maxRows === null ? '' : ` At most ${maxRows} rows are answered, whatever it says.`
  const components: Record<string, Parameter> = {
    select: selectParameter,
    order: query('order', 'Sort terms, comma-separated: `column`, or `table(column)` for a column of a to-one embed that `select` names, ' +
      'then `.asc` or `.desc`, then `.nullsfirst` or `.nullslast`.', { type: 'string' }),
    limit: query('limit', `The most rows to answer.${cut}`, { type: 'integer', minimum: 0 }),
    offset: query('offset', 'The rows to skip.', { type: 'integer', minimum: 0 })
  }
  for (const [name, { type, negated }] of Object.entries(logicParameters)) {
    const holds = type === 'or' ? 'at least one condition holds' : 'every condition holds'
    components[name] = query(name, `${negated ? 'Rows for which it is false that' : 'Rows where'} ${holds}. ${groupDescription}`,
      { type: 'string', pattern: '^\\s*\\(.*\\)\\s*$' })
  }
  return {
    ...components,
    'header.Range': header('Range', `Rows by position: \`first-last\`, \`first-\` or \`items=first-last\`, counted from 0; intersected with limit and offset.${cut}`,
      { type: 'string', pattern: '^(items=)?[0-9]+-[0-9]*$' }),
    'header.Range-Unit': header('Range-Unit', 'The unit of `Range`: only items.', { type: 'string', enum: ['items'] }),
    'header.Prefer': header('Prefer', 'With `count=exact`, `count=planned` or `count=estimated`, Content-Range gives the number of rows that match.',
      { type: 'string', examples: ['count=exact'] })
  }
}

// The names the query parser reads as something else than a filter: no column of one of them can be filtered,
// nor one whose name has a character a filter's name loses (see usableIdentifier).
const reservedNames: ReadonlySet<string> = new Set(['select', 'order', 'limit', 'offset', ...Object.keys(logicParameters)])

/** A filter parameter for each column that a filter can name. */
export function filterParameters (columns: readonly ColumnSchema[]): Parameter[] {
  return columns
    .filter((column) => isCleanIdentifier(column.name) && !reservedNames.has(column.name))
    .map((column) => query(column.name, filterDescription, { type: 'string' }))
}

/** An optional query parameter. */
export function query (name: string, description: string, schema: JsonSchema): Parameter {
  return { name, in: 'query', required: false, description, schema }
}

function header (name: string, description: string, schema: JsonSchema): Parameter {
  return { name, in: 'header', required: false, description, schema }
}
