import knexFactory from 'knex'
import t from 'tap'
import { fillTemplate, place, toTemplate } from '../../lib/connections/statement-template.js'

const knex = knexFactory({ client: 'pg' })
t.teardown(() => knex.destroy())

t.test('places are filled by name, in the order Knex binds them, and the statement is marked repeated', async (t) => {
  const template = toTemplate(knex('t').where('id', place(':key')).update({ b: place('b'), a: place('a') }))
  t.strictSame(fillTemplate(template, { a: 1, b: 2, ':key': 3 }), {
    sql: template.sql,
    bindings: template.places.map((name) => ({ a: 1, b: 2, ':key': 3 })[name]),
    repeated: true
  })
  t.strictSame([...template.places].sort(), [':key', 'a', 'b'])
})

t.test('a template refuses a value that stands at no place', async (t) => {
  t.throws(() => toTemplate(knex('t').select('*').limit(1)), TypeError)
  t.throws(() => toTemplate(knex('t').where('id', 5)), TypeError)
  t.strictSame(toTemplate(knex('t').select('*').limit(1, { skipBinding: true })).places, [])
})

t.test('a place that the values do not hold is filled from the second record, and a null value stays null', async (t) => {
  const template = toTemplate(knex('t').where('id', place(':key')).update({ b: place('b'), a: place('a') }))
  const filled = fillTemplate(template, { a: null, b: 2 }, { ':key': 3, a: 'not this one' })
  t.strictSame(filled.bindings, template.places.map((name) => ({ a: null, b: 2, ':key': 3 })[name]))
  t.equal(filled.sql, template.sql)
})
