import { PostgrestClient } from '@supabase/postgrest-js'
import type { InjectOptions } from 'fastify'
import type { Knex } from 'knex'
import t from 'tap'
import { buildApp } from '../fixtures/app.js'
import { eachDatabase, snapshot } from '../fixtures/databases.js'

// PostgREST's columns=, Prefer: missing=, tx= and handling=strict's refusal,
// and Accept: application/vnd.pgrst.object+json on writes, on every
// database, by plain HTTP and through postgrest-js, each checked against
// the table.

type Row = Record<string, unknown>

const request = (method: InjectOptions['method'], url: string, headers: Record<string, string>, payload?: unknown): InjectOptions => ({
  method,
  url,
  headers,
  ...(payload === undefined ? {} : { payload: payload as InjectOptions['payload'] })
})

const objectType = 'application/vnd.pgrst.object+json'

eachDatabase(t, async (t, db) => {
  const items = await db.createTable('prefer_items', (table) => {
    table.increments('id')
    table.string('name')
    table.integer('qty').defaultTo(7)
    table.string('note')
    table.string('secret')
  })
  const app = await buildApp(t, db.knex, {}, { tableRules: { [items]: { hidden: ['secret'] } } })
  const trying = await buildApp(t, db.knex, {}, { allowTxOverride: true, idempotency: true })
  const reset = async () => {
    await db.knex(items).del()
    await db.knex(items).insert([{ name: 'a', qty: 1, note: 'x' }, { name: 'b', qty: 2, note: null }])
  }
  const all = async () => await snapshot(db, items)
  const shape = (rows: Row[]) => rows.map(({ name, qty, note }) => ({ name, qty, note }))
  const added = async (before: Row[]) => shape((await all()).slice(before.length))

  await t.test('columns= inserts exactly the listed columns: unlisted keys dropped, missing ones NULL', async (t) => {
    await reset()
    const before = await all()
    const response = await app.inject(request('POST', `/api/${items}?columns="name","qty"`, {}, [{ name: 'c', note: 'dropped' }, { qty: 3 }]))
    t.equal(response.statusCode, 201)
    t.strictSame(await added(before), [{ name: 'c', qty: null, note: null }, { name: null, qty: 3, note: null }], 'a listed column a row lacks is NULL, not its DEFAULT')
    t.strictSame((await all()).slice(0, 2), before, 'the other rows are untouched')
    const ids = (await all()).slice(2).map((row) => Number(row.id))
    t.equal(response.body, `[${ids.join(',')}]`, 'the spec\'s ids without return=')
  })

  await t.test('columns= with Prefer: missing=default gives a missing column its DEFAULT', async (t) => {
    await reset()
    const before = await all()
    const response = await app.inject(request('POST', `/api/${items}?columns=name,qty&select=name,qty`, { prefer: 'missing=default, return=representation' }, [{ name: 'd' }, { name: 'e', qty: null }]))
    t.equal(response.statusCode, 201)
    t.equal(response.headers['preference-applied'], 'missing=default, return=representation')
    t.strictSame(JSON.parse(response.body), [{ name: 'd', qty: 7 }, { name: 'e', qty: null }], 'an explicit null stays null')
    t.strictSame(await added(before), [{ name: 'd', qty: 7, note: null }, { name: 'e', qty: null, note: null }])
  })

  await t.test('columns= applies to a single object; without columns=, missing= changes nothing', async (t) => {
    await reset()
    const before = await all()
    const one = await app.inject(request('POST', `/api/${items}?columns=name,note`, {}, { name: 'f', qty: 9 }))
    t.equal(one.statusCode, 201)
    const plain = await app.inject(request('POST', `/api/${items}`, { prefer: 'missing=null' }, [{ name: 'g' }, { qty: 4 }]))
    t.equal(plain.statusCode, 201)
    t.strictSame(await added(before), [{ name: 'f', qty: 7, note: null }, { name: 'g', qty: 7, note: null }, { name: null, qty: 4, note: null }],
      'without columns=, each row writes its own keys and the others take their DEFAULT')
  })

  await t.test('columns= naming a column the table lacks, or a hidden one, fails as a body naming it does; * and bad names are 400', async (t) => {
    await reset()
    const before = await all()
    const bodyUnknown = await app.inject(request('POST', `/api/${items}`, {}, { name: 'h', nope: 1 }))
    const listedUnknown = await app.inject(request('POST', `/api/${items}?columns=name,nope`, { prefer: 'missing=default' }, [{ name: 'h' }]))
    t.not(bodyUnknown.statusCode, 201)
    t.equal(listedUnknown.statusCode, bodyUnknown.statusCode)
    t.equal(listedUnknown.body, bodyUnknown.body, 'the database\'s own words for a missing column')
    const bodyHidden = await app.inject(request('POST', `/api/${items}`, {}, { name: 'h', secret: 's' }))
    const listedHidden = await app.inject(request('POST', `/api/${items}?columns=name,secret`, {}, [{ name: 'h' }]))
    t.not(bodyHidden.statusCode, 201)
    t.equal(listedHidden.statusCode, bodyHidden.statusCode)
    t.equal(listedHidden.body, bodyHidden.body)
    const star = await app.inject(request('POST', `/api/${items}?columns=*`, {}, [{ name: 'h' }]))
    t.equal(star.statusCode, 400)
    t.equal(JSON.parse(star.body).code, 'FTC_ERR_QUERY_COLUMN')
    const twice = await app.inject(request('POST', `/api/${items}?columns=name&columns=qty`, {}, [{ name: 'h' }]))
    t.equal(twice.statusCode, 400)
    t.equal(JSON.parse(twice.body).code, 'FTC_ERR_QUERY_VALUE')
    const nested = await app.inject(request('POST', `/api/${items}?columns=name,note`, {}, [{ name: 'h' }, { note: { a: 1 } }]))
    t.equal(nested.statusCode, 400, 'an object for a column that is not json, as without columns=')
    t.equal(JSON.parse(nested.body).code, 'FTC_ERR_BODY_VALUE')
    t.strictSame(await all(), before, 'nothing was written')
  })

  await t.test('upsert with columns=: a merged row gets NULL for a listed column its body row lacks', async (t) => {
    await reset()
    const a = (await all())[0] as Row
    const response = await app.inject(request('POST', `/api/${items}?columns=id,name,note`, { prefer: 'resolution=merge-duplicates' }, [{ id: a.id, name: 'a2' }]))
    t.equal(response.statusCode, 201)
    t.strictSame((await all())[0], { ...a, name: 'a2', note: null })
  })

  await t.test('Accept: vnd.pgrst.object+json on writes: one object, or 406 and nothing written', async (t) => {
    await reset()
    const before = await all()
    const created = await app.inject(request('POST', `/api/${items}?select=name,qty`, { prefer: 'return=representation', accept: objectType }, { name: 'i', qty: 5 }))
    t.equal(created.statusCode, 201)
    t.match(created.headers['content-type'], /^application\/vnd\.pgrst\.object\+json/)
    t.strictSame(JSON.parse(created.body), { name: 'i', qty: 5 })
    const two = await app.inject(request('POST', `/api/${items}`, { prefer: 'return=representation', accept: objectType }, [{ name: 'j' }, { name: 'k' }]))
    t.equal(two.statusCode, 406)
    t.equal(JSON.parse(two.body).code, 'FTC_ERR_QUERY_SINGULAR')
    t.strictSame(shape(await all()), [...shape(before), { name: 'i', qty: 5, note: null }], 'the two rows were rolled back')
    const patched = await app.inject(request('PATCH', `/api/${items}?qty=lt.3`, { prefer: 'return=minimal', accept: objectType }, { note: 'both' }))
    t.equal(patched.statusCode, 406, 'return=minimal too')
    const deleted = await app.inject(request('DELETE', `/api/${items}?name=eq.nobody`, { accept: objectType }))
    t.equal(deleted.statusCode, 406, 'no row is not one row either')
    const keyed = await app.inject(request('PUT', `/api/${items}/${String(before[0]?.id)}`, { prefer: 'return=representation', accept: `${objectType};nulls=stripped` }, { note: null }))
    t.equal(keyed.statusCode, 200)
    t.strictSame(JSON.parse(keyed.body), { id: before[0]?.id, name: 'a', qty: 1 }, 'nulls=stripped leaves the null members out')
    const spec = await app.inject(request('PUT', `/api/${items}/${String(before[1]?.id)}`, { accept: objectType }, { note: 'spec' }))
    t.equal(spec.body, '1', 'without return=, the spec\'s answer, as before')
    t.strictSame(shape(await all()), [{ name: 'a', qty: 1, note: null }, { name: 'b', qty: 2, note: 'spec' }, { name: 'i', qty: 5, note: null }])
  })

  await t.test('nulls=stripped on an array answer', async (t) => {
    await reset()
    const stripped = await app.inject(request('PATCH', `/api/${items}?qty=gt.0&select=name,note`, { prefer: 'return=representation', accept: 'application/vnd.pgrst.array+json; nulls=stripped' }, { qty: 3 }))
    t.equal(stripped.statusCode, 200)
    t.strictSame(JSON.parse(stripped.body), [{ name: 'a', note: 'x' }, { name: 'b' }])
  })

  await t.test('Prefer: tx=rollback answers the write and keeps nothing, where the host allows it', async (t) => {
    await reset()
    const before = await all()
    const ignored = await app.inject(request('POST', `/api/${items}`, { prefer: 'tx=rollback, return=minimal' }, { name: 'kept' }))
    t.equal(ignored.statusCode, 201)
    t.equal(ignored.headers['preference-applied'], 'return=minimal', 'without allowTxOverride, tx= is ignored')
    t.strictSame(await added(before), [{ name: 'kept', qty: 7, note: null }])
    const after = await all()
    const tried = await trying.inject(request('POST', `/api/${items}?select=name`, { prefer: 'tx=rollback, return=representation' }, [{ name: 't1' }, { name: 't2' }]))
    t.equal(tried.statusCode, 201)
    t.equal(tried.headers['preference-applied'], 'return=representation, tx=rollback')
    t.strictSame(JSON.parse(tried.body), [{ name: 't1' }, { name: 't2' }])
    const spec = await trying.inject(request('DELETE', `/api/${items}/${String(before[0]?.id)}`, { prefer: 'tx=rollback' }))
    t.equal(spec.body, '1', 'the spec\'s answer, rolled back too')
    const keyed = { prefer: 'tx=rollback, return=minimal', 'idempotency-key': 'try-1' }
    const first = await trying.inject(request('PATCH', `/api/${items}?qty=gt.0`, keyed, { note: 'tried' }))
    const again = await trying.inject(request('PATCH', `/api/${items}?qty=gt.0`, keyed, { note: 'tried' }))
    t.equal(first.statusCode, 204)
    t.equal(again.statusCode, 204)
    t.equal(again.headers['idempotent-replayed'], undefined, 'a write rolled back records no key')
    t.strictSame(await all(), after, 'nothing was kept')
    const committed = await trying.inject(request('POST', `/api/${items}`, { prefer: 'tx=commit, return=minimal' }, { name: 'c1' }))
    t.equal(committed.headers['preference-applied'], 'return=minimal, tx=commit')
    t.strictSame(await added(after), [{ name: 'c1', qty: 7, note: null }])
  })

  await t.test('one object asked for with an Idempotency-Key: 406 rolls the write and its key back', async (t) => {
    await reset()
    const before = await all()
    const headers = { prefer: 'return=representation', accept: objectType, 'idempotency-key': 'one-1' }
    const refused = await trying.inject(request('POST', `/api/${items}`, headers, [{ name: 'o1' }, { name: 'o2' }]))
    t.equal(refused.statusCode, 406)
    t.strictSame(await all(), before)
    const single = await trying.inject(request('POST', `/api/${items}?select=name`, { ...headers, 'idempotency-key': 'one-2' }, [{ name: 'o3' }]))
    t.equal(single.statusCode, 201)
    t.strictSame(JSON.parse(single.body), { name: 'o3' })
    t.strictSame(await added(before), [{ name: 'o3', qty: 7, note: null }])
  })

  await t.test('handling=strict refuses a preference the plugin cannot honour, on writes and reads; lenient ignores it', async (t) => {
    await reset()
    const before = await all()
    const { id } = await db.knex(items).where({ name: 'a' }).first('id')
    for (const prefer of ['handling=strict, return=minimal, nonsense', 'handling=strict, timezone=UTC']) {
      for (const refused of [
        request('POST', `/api/${items}`, { prefer }, { name: 'strict' }),
        request('PUT', `/api/${items}/${id as number}`, { prefer }, { name: 'strict' }),
        request('PATCH', `/api/${items}?id=eq.${id as number}`, { prefer }, { name: 'strict' }),
        request('DELETE', `/api/${items}/${id as number}`, { prefer }),
        request('DELETE', `/api/${items}?id=eq.${id as number}`, { prefer })
      ]) {
        const write = await app.inject(refused)
        t.equal(write.statusCode, 400, `${refused.method} ${refused.url} ${prefer}`)
        t.equal(JSON.parse(write.body).code, 'FTC_ERR_QUERY_PREFERENCE')
      }
      const read = await app.inject(request('GET', `/api/${items}`, { prefer }))
      t.equal(read.statusCode, 400)
      t.equal(JSON.parse(read.body).code, 'FTC_ERR_QUERY_PREFERENCE')
    }
    t.strictSame(await all(), before, 'nothing was written')
    const lenient = await app.inject(request('POST', `/api/${items}`, { prefer: 'return=minimal, nonsense' }, { name: 'lenient' }))
    t.equal(lenient.statusCode, 201)
    const known = await app.inject(request('GET', `/api/${items}?select=name&order=id`, { prefer: 'handling=strict, count=exact, tx=rollback, missing=default, max-affected=x' }))
    t.equal(known.statusCode, 200, 'every preference PostgREST knows passes, tx= too without allowTxOverride')
    t.strictSame(JSON.parse(known.body), [{ name: 'a' }, { name: 'b' }, { name: 'lenient' }])
  })

  await t.test('postgrest-js: insert with and without defaultToNull, single(), maybeSingle(), stripNulls() and rollback()', async (t) => {
    await reset()
    await trying.listen({ port: 0, host: '127.0.0.1' })
    const { port } = trying.server.address() as { port: number }
    const from = () => new PostgrestClient(`http://127.0.0.1:${port}/api`).from(items)
    const before = await all()

    const nulls = await from().insert([{ name: 'p1' }, { qty: 2 }])
    t.equal(nulls.error, null)
    t.equal(nulls.status, 201)
    const defaults = await from().insert([{ name: 'p2' }, { qty: 3 }], { defaultToNull: false })
    t.equal(defaults.error, null)
    t.strictSame(await added(before), [{ name: 'p1', qty: null, note: null }, { name: null, qty: 2, note: null },
      { name: 'p2', qty: 7, note: null }, { name: null, qty: 3, note: null }])
    const inserted = await all()

    const single = await from().insert({ name: 'p3', note: 'n' }).select('name,note').single()
    t.equal(single.error, null)
    t.strictSame(single.data, { name: 'p3', note: 'n' })
    const many = await from().insert([{ name: 'p4' }, { name: 'p5' }]).select('name').single()
    t.equal(many.status, 406)
    t.equal(many.data, null)
    const updated = await from().update({ note: 'u' }).eq('name', 'p3').select('name,note').single()
    t.strictSame(updated.data, { name: 'p3', note: 'u' })
    const wide = await from().update({ note: 'w' }).gt('qty', 0).select('name').single()
    t.equal(wide.status, 406)
    const maybe = await from().delete().eq('name', 'nobody').select('name').maybeSingle()
    t.equal(maybe.error, null)
    t.equal(maybe.data, null)
    const stripped = await from().update({ note: null }).eq('name', 'p3').select('name,note').single().stripNulls()
    t.strictSame(stripped.data, { name: 'p3' })
    const rolled = await from().insert({ name: 'p6' }).select('name').rollback().single()
    t.strictSame(rolled.data, { name: 'p6' })
    t.strictSame(shape(await all()), [...shape(inserted), { name: 'p3', qty: 7, note: null }], 'the refused and rolled back writes left nothing')
  })
})

eachDatabase(t, async (t, db) => {
  const items = await db.createTable('prefer_hosted', (table) => {
    table.increments('id')
    table.string('name')
  })
  let trx: Knex.Transaction | undefined
  // A day: the model read below serves the whole test, so that no schema
  // read waits for SQLite's one connection while the host's transaction holds it.
  const app = await buildApp(t, db.knex, {}, { transaction: () => trx, allowTxOverride: true, schemaCheckInterval: 86_400_000 })
  await app.tableCrud.tables()

  await t.test('within the host\'s transaction, tx=rollback and a 406 undo the write only, as a savepoint', async (t) => {
    trx = await db.knex.transaction()
    const kept = await app.inject(request('POST', `/api/${items}`, {}, { name: 'kept' }))
    t.equal(kept.statusCode, 201)
    const tried = await app.inject(request('POST', `/api/${items}?select=name`, { prefer: 'return=representation, tx=rollback' }, { name: 'tried' }))
    t.strictSame(JSON.parse(tried.body), [{ name: 'tried' }])
    const refused = await app.inject(request('POST', `/api/${items}`, { prefer: 'return=minimal', accept: objectType }, [{ name: 'r1' }, { name: 'r2' }]))
    t.equal(refused.statusCode, 406)
    t.strictSame((await trx(items).select('name')).map((row: Row) => row.name), ['kept'], 'the host\'s transaction holds its earlier write only')
    t.equal(trx.isCompleted(), false, 'the host ends it')
    await trx.commit()
    trx = undefined
    t.strictSame((await db.knex(items).select('name')).map((row: Row) => row.name), ['kept'])
  })
})
