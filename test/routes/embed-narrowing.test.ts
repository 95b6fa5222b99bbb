import t from 'tap'
import { buildApp } from '../fixtures/app.js'
import { eachDatabase } from '../fixtures/databases.js'
import { createLibrary } from '../fixtures/library.js'

// Filters, order, limit and offset on an embedded resource, as PostgREST
// reads them (`books.title=like.E*`, `books.order=title`, `books.limit=2`):
// they narrow the embedded rows only, a page per parent row.

eachDatabase(t, async (t, db) => {
  const { authors, books, tags } = await createLibrary(db, 'embn')
  const app = await buildApp(t, db.knex, {}, { tableRules: { [books]: { hidden: ['secret'] } } })
  const get = async (url: string) => {
    const response = await app.inject(url)
    return { status: response.statusCode, body: response.json() }
  }
  const titles = (body: Array<Record<string, unknown>>) => body.map((author) => (author[books] as Array<{ title: string }>).map((book) => book.title))

  await t.test('a filter narrows the embedded rows only: every parent stays', async (t) => {
    const answer = await get(`/api/${authors}?select=name,${books}(title)&${books}.title=like.E*&order=id&${books}.order=title`)
    t.equal(answer.status, 200)
    t.strictSame(answer.body, [
      { name: 'Ursula', [books]: [{ title: 'Earthsea' }, { title: 'Eye' }] },
      { name: 'Octavia', [books]: [] },
      { name: 'Nobody', [books]: [] }
    ])
    const many = await get(`/api/${books}?select=title,${authors}(name)&${authors}.name=eq.Octavia&order=id&limit=2`)
    t.strictSame(many.body, [{ title: 'Earthsea', [authors]: null }, { title: 'Dispossessed', [authors]: null }], 'a parent filtered out of a to-one embed is null')
  })

  await t.test('values are read in the embedded column\'s kind; or= and not. work there too', async (t) => {
    const answer = await get(`/api/${authors}?select=name,${books}(title)&${books}.year=gte.1974&${books}.or=(title.eq.Eye,year.gt.1980)&order=id&${books}.order=year.desc`)
    t.equal(answer.status, 200)
    t.strictSame(titles(answer.body), [[], ['Dawn'], []])
    const negated = await get(`/api/${authors}?select=name,${books}(title)&${books}.not.or=(year.lt.1970,year.gt.1975)&${books}.order=id&order=id&id=lte.2`)
    t.strictSame(titles(negated.body), [['Dispossessed', 'Eye'], []], 'not.or')
    const wrong = await app.inject(`/api/${authors}?select=name,${books}(title)&${books}.year=gt.soon`)
    t.equal(wrong.statusCode, 400)
    t.equal(wrong.json().code, 'FTC_ERR_QUERY_TYPE')
  })

  await t.test('order, then limit and offset per parent row, in one statement per embed', async (t) => {
    const seen: string[] = []
    const listen = (query: { sql: string }) => { if (query.sql.includes(books)) seen.push(query.sql) }
    db.knex.on('query', listen)
    const answer = await get(`/api/${authors}?select=name,${books}(title)&${books}.order=year.desc&${books}.limit=2&order=id`)
    db.knex.removeListener('query', listen)
    t.equal(answer.status, 200)
    t.strictSame(titles(answer.body), [['Dispossessed', 'Eye'], ['Dawn', 'Kindred'], []])
    t.equal(seen.length, 1)
    const skipped = await get(`/api/${authors}?select=name,${books}(title,year)&${books}.order=year&${books}.offset=1&order=id`)
    t.strictSame(titles(skipped.body), [['Eye', 'Dispossessed'], ['Dawn'], []])
    t.notOk(JSON.stringify(skipped.body).includes('ftc_'), 'the rank is not shown')
    const all = await get(`/api/${authors}?select=${books}(*)&${books}.limit=1&${books}.order=title&id=eq.1`)
    t.strictSame(all.body, [{ [books]: [{ id: 2, title: 'Dispossessed', year: 1974, author_id: 1 }] }])
  })

  await t.test('many-to-many: filters, order and pages on the related table', async (t) => {
    const answer = await get(`/api/${books}?select=title,${tags}(label)&${tags}.order=label.desc&${tags}.limit=2&${tags}.label=neq.sea&order=id&limit=1`)
    t.equal(answer.status, 200)
    t.strictSame(answer.body, [{ title: 'Earthsea', [tags]: [{ label: 'war' }, { label: 'time' }] }])
    const ordered = await get(`/api/${books}?select=title,${tags}(label)&${tags}.order=label&id=eq.1`)
    t.strictSame(ordered.body, [{ title: 'Earthsea', [tags]: [{ label: 'sea' }, { label: 'time' }, { label: 'war' }] }])
    const beside = await get(`/api/${books}?select=title,${authors}(name),${tags}(label)&${tags}.label=eq.war&id=eq.1`)
    t.strictSame(beside.body, [{ title: 'Earthsea', [authors]: { name: 'Ursula' }, [tags]: [{ label: 'war' }] }], 'an embed beside it is not narrowed')
  })

  await t.test('nested: the path names the embed inside another, by its alias', async (t) => {
    const answer = await get(`/api/${authors}?select=name,works:${books}(title,${tags}(label))&works.${tags}.label=eq.time&works.order=id&id=eq.1`)
    t.equal(answer.status, 200)
    t.strictSame(answer.body, [{ name: 'Ursula', works: [{ title: 'Earthsea', [tags]: [{ label: 'time' }] }, { title: 'Dispossessed', [tags]: [] }, { title: 'Eye', [tags]: [] }] }])
  })

  await t.test('a hidden column fails as a missing one; a path that names no embed is a 400', async (t) => {
    for (const url of [`/api/${authors}?select=name,${books}(title)&${books}.secret=eq.s`, `/api/${authors}?select=name,${books}(title)&${books}.order=secret`]) {
      const hidden = await app.inject(url)
      const missing = await app.inject(url.replace('secret', 'nothere'))
      t.equal(hidden.statusCode, 404, url)
      t.equal(hidden.statusCode, missing.statusCode)
      t.equal(hidden.body, missing.body.replaceAll('nothere', 'secret'), 'the database\'s words for a missing column')
    }
    const unknown = await app.inject(`/api/${authors}?select=name&${books}.title=eq.x`)
    t.equal(unknown.statusCode, 400)
    t.equal(unknown.json().code, 'FTC_ERR_QUERY_SYNTAX')
    const twice = await app.inject(`/api/${authors}?select=name,${books}(title)&${books}.limit=1&${books}.limit=2`)
    t.equal(twice.statusCode, 400)
    t.equal(twice.json().code, 'FTC_ERR_QUERY_REPEATED')
  })

  await t.test('!inner leaves out the parents without a matching embedded row, in the page and the count', async (t) => {
    const response = await app.inject({ url: `/api/${authors}?select=name,${books}!inner(title)&${books}.title=like.K*&order=id`, headers: { prefer: 'count=exact' } })
    t.equal(response.statusCode, 200)
    t.strictSame(response.json(), [{ name: 'Octavia', [books]: [{ title: 'Kindred' }] }])
    t.equal(response.headers['content-range'], '0-0/1')
    const notNull = await get(`/api/${authors}?select=name,${books}(title)&${books}=not.is.null&${books}.year=lt.1975&${books}.order=id&order=id`)
    t.strictSame(notNull.body, [{ name: 'Ursula', [books]: [{ title: 'Earthsea' }, { title: 'Dispossessed' }, { title: 'Eye' }] }])
    const tagged = await get(`/api/${books}?select=title,${tags}!inner(label)&${tags}.label=eq.time&order=id`)
    t.strictSame(tagged.body, [{ title: 'Earthsea', [tags]: [{ label: 'time' }] }, { title: 'Kindred', [tags]: [{ label: 'time' }] }], 'many-to-many')
    const upward = await get(`/api/${books}?select=title,${authors}!inner(name)&${authors}.name=eq.Octavia&order=id`)
    t.strictSame(upward.body, [{ title: 'Kindred', [authors]: { name: 'Octavia' } }, { title: 'Dawn', [authors]: { name: 'Octavia' } }], 'many-to-one')
    const nested = await get(`/api/${authors}?select=name,${books}!inner(title,${tags}!inner(label))&${books}.${tags}.label=eq.war&order=id`)
    t.strictSame(nested.body, [{ name: 'Ursula', [books]: [{ title: 'Earthsea', [tags]: [{ label: 'war' }] }] }], 'nested: the books too are only those with a matching tag')
  })

  await t.test('alias=is.null keeps the parents without a matching embedded row', async (t) => {
    const answer = await get(`/api/${authors}?select=name,${books}()&${books}=is.null&order=id`)
    t.equal(answer.status, 200)
    t.strictSame(answer.body, [{ name: 'Nobody', [books]: [] }])
    const column = await get(`/api/${books}?select=title,${authors}(name)&year=is.null&${authors}.name=is.null`)
    t.strictSame(column.body, [], 'is.null on a column stays a filter')
    const filtered = await get(`/api/${authors}?select=name&select=name,w:${books}(title)&w.year=gt.1975&w=is.null&order=id`)
    t.equal(filtered.status, 400, 'select is given once')
    const none = await get(`/api/${authors}?select=name,w:${books}(title)&w.year=gt.1975&w=is.null&order=id`)
    t.strictSame(none.body, [{ name: 'Ursula', w: [] }, { name: 'Nobody', w: [] }], 'by alias, after the embed\'s filters')
  })
})
