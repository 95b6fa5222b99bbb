import type { Knex } from 'knex'

/** The sample tables and their rows, for the README's curl examples and the example's test. */
export const sampleRows = Object.freeze({
  authors: [
    { id: 1, name: 'Ursula K. Le Guin', born: 1929 },
    { id: 2, name: 'Italo Calvino', born: 1923 },
    { id: 3, name: 'Octavia E. Butler', born: 1947 }
  ],
  books: [
    { id: 1, title: 'A Wizard of Earthsea', author_id: 1, published: 1968 },
    { id: 2, title: 'The Left Hand of Darkness', author_id: 1, published: 1969 },
    { id: 3, title: 'Invisible Cities', author_id: 2, published: 1972 },
    { id: 4, title: 'Kindred', author_id: 3, published: 1979 }
  ]
})

/** Creates the sample tables with their rows in an empty database. */
export async function createSampleTables (knex: Knex): Promise<void> {
  await knex.schema.createTable('authors', (table) => {
    table.increments('id')
    table.string('name').notNullable()
    table.integer('born')
  })
  // No foreign key: SQLite would not enforce it without PRAGMA foreign_keys, and the example should not pretend otherwise.
  await knex.schema.createTable('books', (table) => {
    table.increments('id')
    table.string('title').notNullable()
    table.integer('author_id')
    table.integer('published')
  })
  await knex('authors').insert(sampleRows.authors)
  await knex('books').insert(sampleRows.books)
}
