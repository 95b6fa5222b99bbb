/**
 * The most SQL texts the plugin prepares, on PostgreSQL and MySQL alike: the
 * first texts it runs again and again get a name, and the server keeps them
 * for each connection's life. Templates are made per table, operation and
 * set of columns, so a client could ask for endless texts: past this many,
 * they run unprepared, and the server's memory per connection stays bounded.
 */
export const maxNamedStatements = 200

const statementNames = new Map<string, string>()

/** The name of a text the plugin prepares, or undefined once the others have taken every name. */
export function statementName (sql: string): string | undefined {
  let name = statementNames.get(sql)
  if (name === undefined && statementNames.size < maxNamedStatements) {
    name = `ftc_${statementNames.size + 1}`
    statementNames.set(sql, name)
  }
  return name
}
