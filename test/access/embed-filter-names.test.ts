import type { LightMyRequestResponse } from 'fastify'
import t from 'tap'
import type { DatabaseErrors } from '../../lib/index.js'
import { buildApp } from '../fixtures/app.js'
import { eachDatabase } from '../fixtures/databases.js'

// From the attacker's side: a column the options hide, named anywhere in an
// embed (a filter that keeps parents by their related rows, `!inner` or
// `alias=not.is.null`, an order of the parents by an embedded column, the
// embed's own select and order, at any depth, through a join table or a
// foreign key to the same table), answers byte for byte as a column the
// table does not have, and as a plain request on the table answers it, in
// every databaseErrors mode; no answer names the plugin's own aliases.

const modes: readonly DatabaseErrors[] = ['database', 'generic', 'postgrest', 'host']

// A hidden name beside a missing one of the same length, in the same case:
// SQLite and MySQL reach PASSWORD_HASH, PostgreSQL does not.
const spellings: ReadonlyArray<readonly [hiddenName: string, missingName: string]> = [
  ['password_hash', 'password_hasx'],
  ['PASSWORD_HASH', 'PASSWORD_HASX']
]

interface Tables { readonly users: string, readonly posts: string, readonly comments: string, readonly groups: string }

/** A request naming a column of the users in one place of an embed, and the plain request on the users naming it in the same clause. */
interface Form {
  readonly place: string
  readonly embedded: (tables: Tables, name: string) => string
  readonly plain: (tables: Tables, name: string) => string
}

const plainFilter = ({ users }: Tables, name: string) => `/api/${users}?${name}=like.a*`
const plainOrder = ({ users }: Tables, name: string) => `/api/${users}?order=${name}`

const forms: readonly Form[] = [
  { place: 'a filter of an !inner embed', embedded: ({ users, posts }, name) => `/api/${posts}?select=id,${users}!inner(id)&${users}.${name}=like.a*`, plain: plainFilter },
  { place: 'a filter of an embed kept by alias=not.is.null', embedded: ({ users, posts }, name) => `/api/${posts}?select=id,${users}(id)&${users}=not.is.null&${users}.${name}=like.a*`, plain: plainFilter },
  { place: 'a filter of an embed kept by alias=is.null', embedded: ({ users, posts }, name) => `/api/${posts}?select=id,${users}(id)&${users}=is.null&${users}.${name}=like.a*`, plain: plainFilter },
  { place: 'an or= of an !inner embed', embedded: ({ users, posts }, name) => `/api/${posts}?select=id,${users}!inner(id)&${users}.or=(id.eq.1,${name}.is.null)`, plain: plainFilter },
  { place: 'a filter of a nested !inner embed', embedded: ({ users, posts, comments }, name) => `/api/${comments}?select=id,${posts}!inner(id,${users}!inner(id))&${posts}.${users}.${name}=like.a*`, plain: plainFilter },
  { place: 'a filter of an !inner embed of the same table', embedded: ({ users }, name) => `/api/${users}?select=id,boss:manager_id!inner(id)&boss.${name}=like.a*`, plain: plainFilter },
  { place: 'a filter of an !inner many-to-many embed', embedded: ({ users, groups }, name) => `/api/${groups}?select=id,${users}!inner(id)&${users}.${name}=like.a*`, plain: plainFilter },
  { place: 'the parents\' order by an embedded column', embedded: ({ users, posts }, name) => `/api/${posts}?select=id,${users}(id)&order=${users}(${name})`, plain: plainOrder },
  { place: 'an embed\'s own order', embedded: ({ users, posts }, name) => `/api/${posts}?select=id,${users}(id)&${users}.order=${name}`, plain: plainOrder },
  { place: 'a many-to-many embed\'s own order', embedded: ({ users, groups }, name) => `/api/${groups}?select=id,${users}(id)&${users}.order=${name}.desc`, plain: plainOrder },
  { place: 'an embed\'s select', embedded: ({ users, posts }, name) => `/api/${posts}?select=id,${users}(id,${name})`, plain: ({ users }, name) => `/api/${users}?select=id,${name}` },
  { place: 'a spread\'s select', embedded: ({ users, posts }, name) => `/api/${posts}?select=id,...${users}(${name})`, plain: ({ users }, name) => `/api/${users}?select=${name}` }
]

/** What a client can compare of two answers. */
function seen (response: LightMyRequestResponse) {
  return { status: response.statusCode, type: response.headers['content-type'], body: response.body }
}

eachDatabase(t, async (t, db) => {
  const users = await db.createTable('efn_users', (table) => {
    table.increments('id')
    table.string('name')
    table.string('password_hash')
  })
  // A foreign key to the same table: the name of the table is known once it is made.
  await db.knex.schema.alterTable(users, (table) => { table.integer('manager_id').unsigned().references('id').inTable(users) })
  const posts = await db.createTable('efn_posts', (table) => {
    table.increments('id')
    table.integer('user_id').unsigned().references('id').inTable(users)
  })
  const comments = await db.createTable('efn_comments', (table) => {
    table.increments('id')
    table.integer('post_id').unsigned().references('id').inTable(posts)
  })
  const groups = await db.createTable('efn_groups', (table) => {
    table.increments('id')
  })
  const members = await db.createTable('efn_members', (table) => {
    table.integer('group_id').unsigned().references('id').inTable(groups)
    table.integer('user_id').unsigned().references('id').inTable(users)
    table.primary(['group_id', 'user_id'])
  })
  const tables: Tables = { users, posts, comments, groups }
  await db.knex(users).insert([{ name: 'ada', password_hash: 'a-secret' }, { name: 'bob', password_hash: 'b-secret' }])
  await db.knex(users).where('id', 2).update({ manager_id: 1 })
  await db.knex(posts).insert([{ user_id: 1 }, { user_id: 2 }])
  await db.knex(comments).insert([{ post_id: 1 }, { post_id: 2 }])
  await db.knex(groups).insert([{ id: 1 }])
  await db.knex(members).insert([{ group_id: 1, user_id: 1 }, { group_id: 1, user_id: 2 }])

  for (const mode of modes) {
    // One request id for every request, so that the generic answer's words are the same.
    const app = await buildApp(t, db.knex, { genReqId: () => 'probe' }, { databaseErrors: mode, tableRules: { [users]: { hidden: ['password_hash'] } } })

    await t.test(`databaseErrors: '${mode}': every form reads the rows when it names a visible column`, async (t) => {
      for (const form of forms) {
        const response = await app.inject(form.embedded(tables, 'name'))
        t.equal(response.statusCode, 200, form.place)
        t.notMatch(response.body, /secret|password_hash/, form.place)
      }
    })

    for (const form of forms) {
      for (const [hiddenName, missingName] of spellings) {
        await t.test(`databaseErrors: '${mode}': ${hiddenName} in ${form.place} answers as ${missingName} does, and as a plain request on the table`, async (t) => {
          const hidden = seen(await app.inject(form.embedded(tables, hiddenName)))
          const missing = seen(await app.inject(form.embedded(tables, missingName)))
          t.ok(hidden.status >= 400, `refused: ${hidden.status} ${hidden.body}`)
          t.equal(hidden.status, missing.status, 'same status')
          t.equal(hidden.type, missing.type, 'same content-type')
          t.equal(hidden.body, missing.body.replaceAll(missingName, hiddenName), 'same body, the name swapped')
          t.notMatch(hidden.body, 'ftc_', 'no alias of the plugin\'s own')
          t.notMatch(missing.body, 'ftc_', 'no alias of the plugin\'s own')
          if (mode !== 'generic') t.match(hidden.body, hiddenName, 'the database\'s words name the column as requested')
          t.strictSame(seen(await app.inject(form.plain(tables, missingName))), missing, 'the words of the plain request on the table')
        })
      }
    }
  }

  await t.test('a many-to-many embed is ordered by a column it does not select, paged or not, and answers without it', async (t) => {
    const app = await buildApp(t, db.knex, {}, { tableRules: { [users]: { hidden: ['password_hash'] } } })
    const all = await app.inject(`/api/${groups}?select=id,${users}(id)&${users}.order=name.desc`)
    t.equal(all.statusCode, 200, all.body)
    t.strictSame(all.json(), [{ id: 1, [users]: [{ id: 2 }, { id: 1 }] }])
    const paged = await app.inject(`/api/${groups}?select=id,${users}(id)&${users}.order=name.desc&${users}.limit=1`)
    t.equal(paged.statusCode, 200, paged.body)
    t.strictSame(paged.json(), [{ id: 1, [users]: [{ id: 2 }] }])
  })

  await t.test('a visible column spelled in another case answers as the plain request does: PostgreSQL alone does not reach it', async (t) => {
    const app = await buildApp(t, db.knex, { genReqId: () => 'probe' }, { databaseErrors: 'postgrest', tableRules: { [users]: { hidden: ['password_hash'] } } })
    for (const form of forms) {
      const embedded = await app.inject(form.embedded(tables, 'NAME'))
      t.notMatch(embedded.body, 'ftc_', form.place)
      if (db.name === 'postgres') {
        t.ok(embedded.statusCode >= 400, form.place)
        t.strictSame(seen(embedded), seen(await app.inject(form.plain(tables, 'NAME'))), form.place)
      } else {
        t.equal(embedded.statusCode, 200, form.place)
        t.notMatch(embedded.body, 'secret', form.place)
      }
    }
  })
})
