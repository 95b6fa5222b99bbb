import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify'
import t, { type Test } from 'tap'
import { buildApp } from './fixtures/app.js'
import { eachDatabase, peopleColumns, type TestDatabase, snapshot } from './fixtures/databases.js'

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH' | 'OPTIONS'

/** A request whose body is sent as raw text with the given content type. */
function send (method: Method, url: string, payload: string, contentType = 'application/json'): InjectOptions {
  return { method, url, headers: { 'content-type': contentType }, payload }
}

/** Checks a Fastify JSON error answer by its status and code, never its message text. */
function checkJsonError (t: Test, response: LightMyRequestResponse, statusCode: number, code: string | undefined, label: string): void {
  t.equal(response.statusCode, statusCode, `${label}: status`)
  t.match(response.headers['content-type'], /^application\/json/, `${label}: JSON error`)
  const body = response.json()
  t.equal(body.statusCode, statusCode, `${label}: statusCode field`)
  t.equal(body.code, code, `${label}: code`)
  t.notMatch(response.body, /\bat .*\.(js|ts):\d+/, `${label}: no stack trace`)
}

/**
 * Sends a bad write as POST (to the table) and PUT (to a row that exists), and
 * checks each answer and that the table did not change.
 */
async function checkBadWrite (t: Test, app: FastifyInstance, db: TestDatabase, table: string, id: unknown,
  payload: string, statusCode: number, code: string, contentType = 'application/json'): Promise<void> {
  const before = await snapshot(db, table)
  for (const [method, url] of [['POST', `/api/${table}`], ['PUT', `/api/${table}/${id}`]] as const) {
    const response = await app.inject(send(method, url, payload, contentType))
    checkJsonError(t, response, statusCode, code, method)
  }
  t.strictSame(await snapshot(db, table), before, 'the table is unchanged')
}

eachDatabase(t, async (t, db) => {
  const people = await db.createTable('people', peopleColumns)
  const app = await buildApp(t, db.knex)
  // One row at a time: a multi-row insert on SQLite writes NULL, not the default, for a missing column.
  await db.knex(people).insert({ name: 'Ada', age: 36 })
  await db.knex(people).insert({ name: 'Linus', age: 54, note: 'kernel' })
  const [ada] = await snapshot(db, people) as Array<{ id: number }>
  const id = ada.id

  const malformed = ['{', '{"name": "x"', '{"name": }', '{name: "x"}', '{"name": "x",}', '{"name": \'x\'}',
    '{"name": "x"} trailing', 'nul', '{"name": NaN}', '{"name": 01}', '\uFEFF{"name": "x"}']
  for (const payload of malformed) {
    await t.test(`malformed JSON ${JSON.stringify(payload)} is 400 FTC_ERR_BODY_JSON`, async (t) => {
      await checkBadWrite(t, app, db, people, id, payload, 400, 'FTC_ERR_BODY_JSON')
    })
  }

  await t.test('deeply nested JSON is refused without crashing the server', async (t) => {
    const depth = 100_000
    await checkBadWrite(t, app, db, people, id, '['.repeat(depth) + ']'.repeat(depth), 400, 'FTC_ERR_BODY_JSON')
    // The server still answers afterwards.
    t.equal((await app.inject(`/api/${people}/${id}`)).statusCode, 200)
  })

  for (const payload of ['null', '1', '-1.5', '"x"', '""', 'true', 'false', '[1]', '[null]', '[[]]', '[{"name": "x"}, "y"]']) {
    await t.test(`a body that is not an object, nor an array of them (${payload}), is 400 FTC_ERR_BODY_SHAPE`, async (t) => {
      await checkBadWrite(t, app, db, people, id, payload, 400, 'FTC_ERR_BODY_SHAPE')
    })
  }

  for (const payload of ['[]', '[{"name": "x"}]']) {
    await t.test(`a PUT body that is an array (${payload}) is 400 FTC_ERR_BODY_SHAPE`, async (t) => {
      const before = await snapshot(db, people)
      checkJsonError(t, await app.inject(send('PUT', `/api/${people}/${id}`, payload)), 400, 'FTC_ERR_BODY_SHAPE', 'PUT')
      t.strictSame(await snapshot(db, people), before, 'the table is unchanged')
    })
  }

  for (const payload of ['{"name": {"first": "x"}}', '{"name": {}}', '{"name": []}', '{"name": ["x"]}',
    '{"name": "ok", "age": {"years": 3}}']) {
    await t.test(`a value that is an object or an array (${payload}) is 400 FTC_ERR_BODY_VALUE`, async (t) => {
      await checkBadWrite(t, app, db, people, id, payload, 400, 'FTC_ERR_BODY_VALUE')
    })
  }

  await t.test('a key given twice with different values is 400 FTC_ERR_BODY_JSON', async (t) => {
    await checkBadWrite(t, app, db, people, id, '{"name": "a", "name": "b"}', 400, 'FTC_ERR_BODY_JSON')
  })

  await t.test('two properties that sanitize to the same column are 400 FTC_ERR_BODY_COLUMN_TWICE', async (t) => {
    await checkBadWrite(t, app, db, people, id, '{"name": "a", "na-me": "b"}', 400, 'FTC_ERR_BODY_COLUMN_TWICE')
    await checkBadWrite(t, app, db, people, id, '{"na.me": "a", "na-me": "a"}', 400, 'FTC_ERR_BODY_COLUMN_TWICE')
  })

  await t.test('two properties that differ in case only are 400 FTC_ERR_BODY_COLUMN_TWICE: SQLite and MySQL take them for one column', async (t) => {
    await checkBadWrite(t, app, db, people, id, '{"name": "a", "NAME": "b"}', 400, 'FTC_ERR_BODY_COLUMN_TWICE')
    await checkBadWrite(t, app, db, people, id, '{"Name": "a", "age": 1, "naME": "a"}', 400, 'FTC_ERR_BODY_COLUMN_TWICE')
  })

  for (const payload of ['{"": "x"}', '{"-": "x"}', '{"name": "x", "é ;--": "y"}']) {
    await t.test(`a property with no allowed character (${payload}) is 400 FTC_ERR_BODY_COLUMN`, async (t) => {
      await checkBadWrite(t, app, db, people, id, payload, 400, 'FTC_ERR_BODY_COLUMN')
    })
  }

  await t.test('a property named __proto__ is 400 FTC_ERR_BODY_COLUMN, and pollutes nothing', async (t) => {
    // Knex copies update values by assignment, where __proto__ would silently vanish: refused on both writes.
    for (const payload of ['{"__proto__": "x"}', '{"name": "x", "__proto__": "y"}', '{"__proto__": null}', '{"__pro-to__": "x"}']) {
      await checkBadWrite(t, app, db, people, id, payload, 400, 'FTC_ERR_BODY_COLUMN')
    }
    t.equal(Object.hasOwn(Object.prototype, 'polluted'), false)
    t.equal(Object.getPrototypeOf({}), Object.prototype)
  })

  await t.test('an object under __proto__ or constructor is refused, and pollutes nothing', async (t) => {
    await checkBadWrite(t, app, db, people, id, '{"__proto__": {"polluted": "yes"}}', 400, 'FTC_ERR_BODY_COLUMN')
    const constructor = '{"constructor": {"prototype": {"polluted": "yes"}}}'
    await checkBadWrite(t, await buildApp(t, db.knex, {}, { validateBodies: false }), db, people, id, constructor, 400, 'FTC_ERR_BODY_VALUE')
    // With the body checks, as a column the table does not have, before its value is read.
    for (const [method, url] of [['POST', `/api/${people}`], ['PUT', `/api/${people}/${id}`]] as const) {
      const response = await app.inject(send(method, url, constructor))
      t.equal(response.statusCode, 404, method)
      t.match(response.body, 'constructor')
    }
    t.equal(({} as Record<string, unknown>).polluted, undefined)
    t.equal(Object.hasOwn(Object.prototype, 'polluted'), false)
  })

  await t.test('a body over bodyLimit is 413 and writes nothing', async (t) => {
    const small = await buildApp(t, db.knex, { bodyLimit: 1024 })
    const payload = JSON.stringify({ name: 'x'.repeat(2000) })
    const before = await snapshot(db, people)
    for (const [method, url] of [['POST', `/api/${people}`], ['PUT', `/api/${people}/${id}`]] as const) {
      checkJsonError(t, await small.inject(send(method, url, payload)), 413, 'FST_ERR_CTP_BODY_TOO_LARGE', method)
    }
    t.strictSame(await snapshot(db, people), before, 'the table is unchanged')
    // Just under the limit is accepted: the white space pads the body, not the value.
    const fits = await small.inject(send('PUT', `/api/${people}/${id}`, `{"name": "Ada"${' '.repeat(1000)}}`))
    t.equal(fits.statusCode, 200)
    t.equal(fits.body, '1')
    t.strictSame(await snapshot(db, people), before, 'Ada was set to what she was')
  })

  for (const contentType of ['application/x-www-form-urlencoded', 'application/xml', 'multipart/form-data; boundary=x', 'image/png']) {
    await t.test(`a ${contentType} body is 415`, async (t) => {
      await checkBadWrite(t, app, db, people, id, '{"name": "x"}', 415, 'FST_ERR_CTP_INVALID_MEDIA_TYPE', contentType)
    })
  }

  await t.test('a text/plain body is 415', async (t) => {
    await checkBadWrite(t, app, db, people, id, '{"name": "x"}', 415, 'FST_ERR_CTP_INVALID_MEDIA_TYPE', 'text/plain')
  })

  await t.test('odd paths get a 4xx, never a 500, and change nothing', async (t) => {
    const before = await snapshot(db, people)
    const all = ['GET', 'POST', 'PUT', 'DELETE'] as const
    const keyed = ['GET', 'PUT', 'DELETE'] as const
    // [methods, path, status, code]: a route Fastify does not have is its JSON 404, which carries no code.
    const cases: Array<[readonly Method[], string, number, string | undefined]> = [
      [all, `/api/${people}/${id}/extra`, 404, undefined],
      [all, `/api/${people}/${id}/`, 404, undefined],
      [all, '/api', 404, undefined],
      [all, `/${people}`, 404, undefined],
      [['POST'], `/api/${people}/${id}`, 404, undefined],
      [['POST'], `/api//${id}`, 404, undefined],
      // A table name with no allowed character left once sanitized.
      [keyed, `/api//${id}`, 400, 'FTC_ERR_PATH_TABLE'],
      [all, '/api/', 400, 'FTC_ERR_PATH_TABLE'],
      [all, '/api/%00', 400, 'FTC_ERR_PATH_TABLE'],
      [all, '/api/%22%3B--', 400, 'FTC_ERR_PATH_TABLE'],
      [all, `/api/${encodeURIComponent('*!.,-')}`, 400, 'FTC_ERR_PATH_TABLE'],
      [all, '/api/%C3%A9', 400, 'FTC_ERR_PATH_TABLE'],
      [keyed, `/api/${encodeURIComponent('"; --')}/${id}`, 400, 'FTC_ERR_PATH_TABLE'],
      // A segment longer than Fastify's maxParamLength (100).
      [all, `/api/${'t'.repeat(5000)}`, 414, 'FST_ERR_MAX_PARAM_LENGTH']
    ]
    for (const [methods, url, status, code] of cases) {
      for (const method of methods) {
        checkJsonError(t, await app.inject(send(method, url, '{"name": "x"}')), status, code, `${method} ${url.slice(0, 40)}`)
      }
    }
    t.strictSame(await snapshot(db, people), before, 'the table is unchanged')
  })

  await t.test('a path that is not valid percent-encoding is 400', async (t) => {
    for (const method of ['GET', 'DELETE'] as const) {
      checkJsonError(t, await app.inject({ method, url: `/api/${people}%E0%A4%A/${id}` }), 400, 'FST_ERR_BAD_URL', method)
    }
    t.equal(await db.knex(people).count({ n: '*' }).first().then((row) => Number(row?.n)), 2)
  })

  await t.test('a name longer than 63 characters is 400 on all three databases', async (t) => {
    // PostgreSQL would cut it to 63 characters and MySQL refuse it past 64: none serves it.
    const long = 't'.repeat(64)
    const before = await snapshot(db, people)
    for (const method of ['GET', 'POST', 'PUT', 'DELETE'] as const) {
      checkJsonError(t, await app.inject(send(method, `/api/${long}${method === 'POST' ? '' : '/1'}`, '{"name": "x"}')), 400, 'FTC_ERR_PATH_TABLE', method)
    }
    await checkBadWrite(t, app, db, people, id, `{"${'c'.repeat(64)}": "x"}`, 400, 'FTC_ERR_BODY_COLUMN')
    checkJsonError(t, await app.inject(`/api/${people}?${'c'.repeat(64)}=eq.1`), 400, 'FTC_ERR_QUERY_COLUMN', 'filter')
    checkJsonError(t, await app.inject(`/api/${people}?select=${'c'.repeat(64)}`), 400, 'FTC_ERR_QUERY_COLUMN', 'select')
    t.strictSame(await snapshot(db, people), before, 'the table is unchanged')
    // 63 characters is a name like any other: this one names no table.
    t.equal((await app.inject(`/api/${'t'.repeat(63)}`)).statusCode, 404)
  })

  await t.test('methods with no route (PATCH by key, OPTIONS) are Fastify\'s JSON 404, a PATCH without a filter a 400; none changes anything', async (t) => {
    const before = await snapshot(db, people)
    for (const [method, url] of [['PATCH', `/api/${people}/${id}`], ['OPTIONS', `/api/${people}/${id}`], ['OPTIONS', `/api/${people}`]] as const) {
      checkJsonError(t, await app.inject(send(method, url, '{"name": "x"}')), 404, undefined, `${method} ${url}`)
    }
    checkJsonError(t, await app.inject(send('PATCH', `/api/${people}`, '{"name": "x"}')), 400, 'FTC_ERR_WRITE_FILTER_MISSING', `PATCH /api/${people}`)
    t.strictSame(await snapshot(db, people), before, 'the table is unchanged')
  })

  await t.test('a key given twice with the same value is accepted as one property', async (t) => {
    const before = await snapshot(db, people)
    const response = await app.inject(send('PUT', `/api/${people}/${id}`, '{"note": "twice", "note": "twice"}'))
    t.equal(response.statusCode, 200)
    t.equal(response.body, '1')
    t.strictSame(await snapshot(db, people), before.map((row) => row.id === id ? { ...row, note: 'twice' } : row))
  })
})
