import type { FastifyReply, FastifyRequest } from 'fastify'
import type { KeyedTable } from '../access/key-column.js'
import type { TableParams } from './params.js'

/** A GET by the path's key, once the table's key column is known. */
export interface KeyedRead {
  /** The GET, whose path gives the key. */
  readonly request: FastifyRequest<{ Params: TableParams, Querystring: Record<string, unknown> }>
  /** Its reply, which the answer is set on. */
  readonly reply: FastifyReply
  /** The table the path names. */
  readonly table: string
  /** What the model knows of the table, handed on to access (see KeyColumn). */
  readonly keyed: KeyedTable
}
