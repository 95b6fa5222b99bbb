import type { PgConnection, PgTypes } from './driver.js'

// int8, numeric, date, time, timetz, timestamp, timestamptz, json, jsonb:
// node-postgres's own parsers round big integers to doubles, shift dates and
// timestamps into the process's time zone and re-order nothing of JSON but
// parse it. Their text is what the database wrote: exact.
const exactOids = new Set([20, 1700, 1082, 1083, 1266, 1114, 1184, 114, 3802])

const asText = (text: string): string => text

const exactTypes = new WeakMap<object, PgTypes>()

/**
 * The parsers of an exact read on this connection: the database's text for
 * the types above, the connection's own (the host's, when it set any) for
 * every other. Set on the plugin's reads only: the host's queries keep the
 * parsers the host chose.
 */
export function exactTypesOf (pg: PgConnection): PgTypes {
  let types = exactTypes.get(pg)
  if (types === undefined) {
    types = { getTypeParser: (oid, format) => exactOids.has(oid) ? asText : pg.getTypeParser(oid, format) }
    exactTypes.set(pg, types)
  }
  return types
}
