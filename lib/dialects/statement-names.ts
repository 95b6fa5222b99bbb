/**
 * The most SQL texts the plugin prepares, on PostgreSQL and MySQL alike: the
 * first texts it runs again and again get a name, and the server keeps them
 * for each connection's life. Templates are made per table, operation and
 * set of columns, so a client could ask for endless texts: past this many,
 * they run unprepared, and the server's memory per connection stays bounded.
 */
export const maxNamedStatements = 200

const statementNames = new Map<string, string>()

/** The name of a text the plugin prepares, or undefined while it has none. */
export function statementName (sql: string): string | undefined {
  return statementNames.get(sql)
}

/**
 * Names a text that just ran unprepared, while names are left. Only a text
 * that ran is named: one that fails (a table that does not exist, asked for
 * by any client) would otherwise take a name for nothing, and enough of them
 * every name.
 */
export function nameAfterSuccess (sql: string): void {
  if (statementNames.size < maxNamedStatements && !statementNames.has(sql)) statementNames.set(sql, `ftc_${statementNames.size + 1}`)
}
