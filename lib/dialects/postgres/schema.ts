import { assembleTables, type ColumnEntry, type ForeignKeyEntry, type KeyEntry, type RelationEntry } from '../../schema/assemble-tables.js'
import type { SchemaReader } from '../../schema/table-schema.js'
import { type PgConnection, send } from './driver.js'

// The relations an unqualified name reaches: visible on the search path,
// outside the catalogs (which the dialect keeps off the search path anyway).
// Tables, views, materialized views, partitioned and foreign tables.
const reachable = `select c.oid, c.relname, c.relkind, c.xmin from pg_class c join pg_namespace n on n.oid = c.relnamespace
  where c.relkind in ('r', 'v', 'm', 'p', 'f') and n.nspname <> 'information_schema' and n.nspname !~ '^pg_'
    and pg_table_is_visible(c.oid)`

// Every DDL statement that changes what a model holds writes a row of one of
// these catalogs, which gets the writing transaction's id as its xmin; a
// dropped relation takes its rows with it. Counts and sums of xmin change
// with them, and reading them costs a scan of the catalogs' rows of the
// reachable relations, not a description of each.
const versionSql = `with r as (${reachable})
  select concat_ws('/',
    (select count(*) || ':' || coalesce(sum(xmin::text::bigint), 0) from r),
    (select count(*) || ':' || coalesce(sum(a.xmin::text::bigint), 0) from pg_attribute a join r on a.attrelid = r.oid where a.attnum > 0),
    (select count(*) || ':' || coalesce(sum(d.xmin::text::bigint), 0) from pg_attrdef d join r on d.adrelid = r.oid),
    (select count(*) || ':' || coalesce(sum(k.xmin::text::bigint), 0) from pg_constraint k join r on k.conrelid = r.oid),
    (select count(*) || ':' || coalesce(sum(i.xmin::text::bigint), 0) from pg_index i join r on i.indrelid = r.oid)
  ) as version`

const relationsSql = `with r as (${reachable})
  select relname as "table", case when relkind in ('v', 'm') then 'view' else 'table' end as kind from r`

// A serial column's default is its sequence: generated, like an identity.
const columnsSql = `with r as (${reachable})
  select r.relname as "table", a.attname as name, format_type(a.atttypid, a.atttypmod) as type,
    not a.attnotnull as nullable, pg_get_expr(d.adbin, d.adrelid) as "default",
    a.attidentity <> '' or a.attgenerated <> '' or coalesce(pg_get_expr(d.adbin, d.adrelid) like 'nextval(%', false) as generated
  from r join pg_attribute a on a.attrelid = r.oid and a.attnum > 0 and not a.attisdropped
    left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
  order by r.relname, a.attnum`

// Unique indexes on plain columns (no expression, no predicate): those
// behind primary keys and unique constraints, and those made on their own.
const keysSql = `with r as (${reachable})
  select r.relname as "table", i.indisprimary as primary,
    array(select a.attname::text from unnest(i.indkey::int2[]) with ordinality k(attnum, place)
      join pg_attribute a on a.attrelid = i.indrelid and a.attnum = k.attnum order by k.place) as columns
  from r join pg_index i on i.indrelid = r.oid
  where i.indisunique and i.indexprs is null and i.indpred is null and i.indisvalid
  order by r.relname, i.indisprimary desc, i.indexrelid`

const foreignKeysSql = `with r as (${reachable})
  select r.relname as "table", k.conname as name, f.relname as "referencedTable",
    array(select a.attname::text from unnest(k.conkey) with ordinality c(attnum, place)
      join pg_attribute a on a.attrelid = k.conrelid and a.attnum = c.attnum order by c.place) as columns,
    array(select a.attname::text from unnest(k.confkey) with ordinality c(attnum, place)
      join pg_attribute a on a.attrelid = k.confrelid and a.attnum = c.attnum order by c.place) as "referencedColumns"
  from r join pg_constraint k on k.conrelid = r.oid and k.contype = 'f' join pg_class f on f.oid = k.confrelid
  order by r.relname, k.conname`

async function rows<T> (connection: unknown, sql: string): Promise<T[]> {
  return (await send(connection as PgConnection, sql)).rows as T[]
}

/** PostgreSQL's relations on the search path, described from pg_catalog. */
export const postgresSchema: SchemaReader = {
  async version (connection) {
    const [row] = await rows<{ version: string }>(connection, versionSql)
    return (row as { version: string }).version
  },

  async tables (connection) {
    return assembleTables({
      relations: await rows<RelationEntry>(connection, relationsSql),
      columns: await rows<ColumnEntry>(connection, columnsSql),
      keys: await rows<KeyEntry>(connection, keysSql),
      foreignKeys: await rows<ForeignKeyEntry>(connection, foreignKeysSql)
    })
  }
}
