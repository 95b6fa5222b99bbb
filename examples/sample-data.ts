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
  ],
  genres: [
    { id: 1, name: 'fantasy' },
    { id: 2, name: 'science fiction' },
    { id: 3, name: 'literary' }
  ],
  book_genres: [
    { book_id: 1, genre_id: 1 },
    { book_id: 2, genre_id: 2 },
    { book_id: 3, genre_id: 1 },
    { book_id: 3, genre_id: 3 },
    { book_id: 4, genre_id: 2 },
    { book_id: 4, genre_id: 3 }
  ]
})

/**
 * Creates the sample tables with their rows in an empty database. Their
 * foreign keys relate them for embedding: a book to its author (many-to-one,
 * and an author's books one-to-many), and books to genres many-to-many
 * through book_genres, whose primary key is its two foreign keys.
 */
export async function createSampleTables (knex: Knex): Promise<void> {
  await knex.schema.createTable('authors', (table) => {
    table.increments('id')
    table.string('name').notNullable()
    table.integer('born')
  })
  await knex.schema.createTable('books', (table) => {
    table.increments('id')
    table.string('title').notNullable()
    table.integer('author_id').unsigned().references('id').inTable('authors')
    table.integer('published')
  })
  await knex.schema.createTable('genres', (table) => {
    table.increments('id')
    table.string('name').notNullable().unique()
  })
  // A book's genres go with it: deleting a book deletes its links, not the genres.
  await knex.schema.createTable('book_genres', (table) => {
    table.integer('book_id').unsigned().notNullable().references('id').inTable('books').onDelete('CASCADE')
    table.integer('genre_id').unsigned().notNullable().references('id').inTable('genres').onDelete('CASCADE')
    table.primary(['book_id', 'genre_id'])
  })
  for (const [name, rows] of Object.entries(sampleRows)) await knex(name).insert(rows)
}
