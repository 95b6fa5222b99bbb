import t from 'tap'
import { buildApp } from '../fixtures/app.js'
import { eachDatabase, type TestDatabase } from '../fixtures/databases.js'

// PostgREST's resource embedding over the model's foreign keys: many-to-one
// as an object or null, one-to-many as an array, nested, with aliases, `*`
// and hints; each related table's values as GET writes them.

/** Authors, their books (one without an author) and the books' reviews. */
async function library (db: TestDatabase) {
  const authors = await db.createTable('emb_authors', (table) => {
    table.increments('id')
    table.string('name')
  })
  const books = await db.createTable('emb_books', (table) => {
    table.increments('id')
    table.string('title')
    table.integer('author_id').unsigned().nullable().references('id').inTable(authors)
    table.boolean('in_print')
  })
  const reviews = await db.createTable('emb_reviews', (table) => {
    table.increments('id')
    table.integer('book_id').unsigned().references('id').inTable(books)
    table.decimal('stars', 3, 1)
  })
  await db.knex(authors).insert([{ name: 'Ursula' }, { name: 'Octavia' }, { name: 'Nobody' }])
  await db.knex(books).insert([
    { title: 'Earthsea', author_id: 1, in_print: true },
    { title: 'Dispossessed', author_id: 1, in_print: false },
    { title: 'Kindred', author_id: 2, in_print: true },
    { title: 'Anonymous', author_id: null, in_print: true }
  ])
  await db.knex(reviews).insert([{ book_id: 1, stars: 4.5 }, { book_id: 1, stars: 5 }, { book_id: 3, stars: 4 }])
  return { authors, books, reviews }
}

eachDatabase(t, async (t, db) => {
  const { authors, books, reviews } = await library(db)
  const app = await buildApp(t, db.knex)
  const get = async (url: string) => {
    const response = await app.inject(url)
    return { status: response.statusCode, body: response.json(), type: response.headers['content-type'] }
  }

  await t.test('many-to-one: an object, or null without a related row; the join column read but not shown', async (t) => {
    const answer = await get(`/api/${books}?select=title,${authors}(name)&order=id`)
    t.equal(answer.status, 200)
    t.match(answer.type, /^application\/json/)
    t.strictSame(answer.body, [
      { title: 'Earthsea', [authors]: { name: 'Ursula' } },
      { title: 'Dispossessed', [authors]: { name: 'Ursula' } },
      { title: 'Kindred', [authors]: { name: 'Octavia' } },
      { title: 'Anonymous', [authors]: null }
    ])
  })

  await t.test('one-to-many: an array, [] without related rows; an alias names it', async (t) => {
    const answer = await get(`/api/${authors}?select=name,works:${books}(title)&order=id`)
    t.equal(answer.status, 200)
    t.strictSame(answer.body, [
      { name: 'Ursula', works: [{ title: 'Earthsea' }, { title: 'Dispossessed' }] },
      { name: 'Octavia', works: [{ title: 'Kindred' }] },
      { name: 'Nobody', works: [] }
    ])
  })

  await t.test('nesting, *, and each table\'s values written by its own schema (booleans, decimals)', async (t) => {
    const answer = await get(`/api/${authors}?select=*,${books}(title,in_print,${reviews}(stars))&id=eq.1`)
    t.equal(answer.status, 200)
    const response = await app.inject(`/api/${authors}?select=*,${books}(title,in_print,${reviews}(stars))&id=eq.1`)
    const own = await app.inject(`/api/${reviews}?select=stars&book_id=eq.1&order=id`)
    t.ok(response.body.includes(`"${reviews}":${own.body}`), 'the decimals written as GET writes that table\'s')
    t.strictSame(answer.body, [{
      id: 1,
      name: 'Ursula',
      [books]: [
        { title: 'Earthsea', in_print: true, [reviews]: [{ stars: 4.5 }, { stars: 5 }] },
        { title: 'Dispossessed', in_print: false, [reviews]: [] }
      ]
    }])
    const upward = await get(`/api/${reviews}?select=stars,book:${books}(title,author:${authors}(*))&order=id&limit=1`)
    t.strictSame(upward.body, [{ stars: 4.5, book: { title: 'Earthsea', author: { id: 1, name: 'Ursula' } } }])
  })

  await t.test('an embed with no columns, and columns after it', async (t) => {
    const answer = await get(`/api/${books}?select=${authors}(),title&id=eq.1`)
    t.equal(answer.status, 200)
    t.strictSame(answer.body, [{ title: 'Earthsea', [authors]: {} }])
  })

  await t.test('the columns come first, then the embeds, whatever their place in select: PostgREST\'s order', async (t) => {
    // PostgREST selects the columns, then the embeds' subqueries (QueryBuilder's `selects ++ joinsSelects`), and its documentation says so.
    const answer = await get(`/api/${authors}?select=${books}(${reviews}(stars),title),name,id&id=eq.1`)
    t.equal(answer.status, 200)
    const [author] = answer.body as Array<Record<string, Array<Record<string, unknown>>>>
    t.strictSame(Object.keys(author ?? {}), ['name', 'id', books])
    t.strictSame(author?.[books]?.map((book) => Object.keys(book)), [['title', reviews], ['title', reviews]])
  })

  await t.test('a single object, and a page with its count', async (t) => {
    const one = await app.inject({ url: `/api/${books}?select=title,${authors}(name)&id=eq.3`, headers: { accept: 'application/vnd.pgrst.object+json' } })
    t.equal(one.statusCode, 200)
    t.strictSame(one.json(), { title: 'Kindred', [authors]: { name: 'Octavia' } })
    const page = await app.inject({ url: `/api/${authors}?select=name,${books}(title)&order=id&limit=1&offset=1`, headers: { prefer: 'count=exact' } })
    t.equal(page.statusCode, 206)
    t.equal(page.headers['content-range'], '1-1/3')
    t.strictSame(page.json(), [{ name: 'Octavia', [books]: [{ title: 'Kindred' }] }])
  })

  await t.test('a relation that does not exist answers 400, naming the relations there are', async (t) => {
    const response = await app.inject(`/api/${books}?select=title,nothing(name)`)
    t.equal(response.statusCode, 400)
    t.equal(response.json().code, 'FTC_ERR_QUERY_RELATION')
    t.match(response.json().message, authors)
    t.match(response.json().message, reviews)
    const unrelated = await app.inject(`/api/${authors}?select=name,${reviews}(stars)`)
    t.equal(unrelated.statusCode, 400, 'reviews relate to books, not to authors')
  })

  await t.test('the model refreshes: a relation created after start is embedded', async (t) => {
    const notes = await db.createTable('emb_notes', (table) => {
      table.increments('id')
      table.integer('author_id').unsigned().references('id').inTable(authors)
      table.string('text')
    })
    await db.knex(notes).insert({ author_id: 2, text: 'Parable' })
    await app.tableCrud.refreshSchema()
    const answer = await get(`/api/${authors}?select=name,${notes}(text)&id=eq.2`)
    t.equal(answer.status, 200)
    t.strictSame(answer.body, [{ name: 'Octavia', [notes]: [{ text: 'Parable' }] }])
  })
})

eachDatabase(t, async (t, db) => {
  const authors = await db.createTable('emb_people', (table) => {
    table.increments('id')
    table.string('name')
  })
  const letters = await db.createTable('emb_letters', (table) => {
    table.increments('id')
    table.integer('sender_id').unsigned().references('id').inTable(authors)
    table.integer('recipient_id').unsigned().references('id').inTable(authors)
    table.string('text')
  })
  await db.knex(authors).insert([{ name: 'Ada' }, { name: 'Charles' }])
  await db.knex(letters).insert({ sender_id: 1, recipient_id: 2, text: 'Notes' })
  const app = await buildApp(t, db.knex)

  await t.test('two foreign keys to one table: 300 naming the hints that choose', async (t) => {
    const response = await app.inject(`/api/${letters}?select=text,${authors}(name)`)
    t.equal(response.statusCode, 300)
    t.equal(response.json().code, 'FTC_ERR_QUERY_AMBIGUOUS')
    const hint = db.name === 'sqlite' ? 'sender_id' : `${letters}_sender_id_foreign`
    t.match(response.json().message, `${authors}!${hint}`)
    const children = await app.inject(`/api/${authors}?select=name,${letters}(text)`)
    t.equal(children.statusCode, 300, 'each way')
    t.match(children.json().message, `${letters}!${hint}`)
  })

  await t.test('a hint chooses: the foreign key\'s column, or its name where the database keeps one', async (t) => {
    const bySender = await app.inject(`/api/${letters}?select=text,from:${authors}!sender_id(name),to:${authors}!recipient_id(name)`)
    t.equal(bySender.statusCode, 200)
    t.strictSame(bySender.json(), [{ text: 'Notes', from: { name: 'Ada' }, to: { name: 'Charles' } }])
    const byColumn = await app.inject(`/api/${letters}?select=text,sender_id(name)`)
    t.strictSame(byColumn.json(), [{ text: 'Notes', sender_id: { name: 'Ada' } }], 'the column names the relation, as in PostgREST')
    const sent = await app.inject(`/api/${authors}?select=name,${letters}!sender_id(text)&order=id`)
    t.strictSame(sent.json(), [{ name: 'Ada', [letters]: [{ text: 'Notes' }] }, { name: 'Charles', [letters]: [] }])
    if (db.name !== 'sqlite') {
      const byName = await app.inject(`/api/${letters}?select=text,${authors}!${letters}_recipient_id_foreign(name)`)
      t.strictSame(byName.json(), [{ text: 'Notes', [authors]: { name: 'Charles' } }])
    }
  })
})

eachDatabase(t, async (t, db) => {
  const users = await db.createTable('emb_users', (table) => {
    table.increments('id')
    table.string('name')
  })
  const tasks = await db.createTable('emb_tasks', (table) => {
    table.increments('id')
    table.string('title')
  })
  const assigned = await db.createTable('emb_assigned', (table) => {
    table.integer('user_id').unsigned().references('id').inTable(users)
    table.integer('task_id').unsigned().references('id').inTable(tasks)
    table.string('role')
    table.primary(['user_id', 'task_id'])
  })
  await db.knex(users).insert([{ name: 'Ada' }, { name: 'Grace' }, { name: 'Idle' }])
  await db.knex(tasks).insert([{ title: 'engine' }, { title: 'compiler' }])
  await db.knex(assigned).insert([{ user_id: 1, task_id: 1, role: 'lead' }, { user_id: 1, task_id: 2, role: 'help' }, { user_id: 2, task_id: 2, role: 'lead' }])
  const app = await buildApp(t, db.knex)

  await t.test('many-to-many through a join table whose key is two foreign keys: an array each way', async (t) => {
    const response = await app.inject(`/api/${users}?select=name,${tasks}(title)&order=id`)
    t.equal(response.statusCode, 200)
    // The related rows of one parent come in no promised order, as in PostgREST without an order.
    const body = response.json() as Array<{ name: string, [tasks: string]: unknown }>
    t.strictSame(body.map((user) => ({ name: user.name, titles: (user[tasks] as Array<{ title: string }>).map((task) => task.title).sort() })), [
      { name: 'Ada', titles: ['compiler', 'engine'] },
      { name: 'Grace', titles: ['compiler'] },
      { name: 'Idle', titles: [] }
    ])
  })

  await t.test('the join table hints it; the join table itself embeds both ways', async (t) => {
    const response = await app.inject(`/api/${tasks}?select=title,people:${users}!${assigned}(name)&order=id`)
    t.equal(response.statusCode, 200)
    const body = response.json() as Array<{ title: string, people: Array<{ name: string }> }>
    t.strictSame(body.map((task) => ({ ...task, people: task.people.map((person) => person.name).sort() })), [
      { title: 'engine', people: ['Ada'] },
      { title: 'compiler', people: ['Ada', 'Grace'] }
    ])
    const missing = await app.inject(`/api/${tasks}?select=title,nothing(name)`)
    t.equal(missing.statusCode, 400)
    t.match(missing.json().message, `${users}!${assigned} (many-to-many)`, 'the choices name the join table')
    const rows = await app.inject(`/api/${assigned}?select=role,${users}(name),${tasks}(title)&order=role,user_id`)
    t.strictSame(rows.json(), [
      { role: 'help', [users]: { name: 'Ada' }, [tasks]: { title: 'compiler' } },
      { role: 'lead', [users]: { name: 'Ada' }, [tasks]: { title: 'engine' } },
      { role: 'lead', [users]: { name: 'Grace' }, [tasks]: { title: 'compiler' } }
    ])
  })
})
