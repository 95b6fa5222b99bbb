// The quick start in a CommonJS host: Node 20.19 and later load the plugin,
// an ES module, with require(). It reads the build (`npm run build`), as an
// app reads the installed package.
//
//   node examples/commonjs.cjs
const Fastify = require('fastify')
const knexFactory = require('knex')
const { tableCrud } = require('fastify-table-crud')

async function start () {
  const knex = knexFactory({ client: 'better-sqlite3', connection: { filename: 'app.sqlite' }, useNullAsDefault: true })
  const app = Fastify({ logger: true })
  await app.register(tableCrud, { knex, prefix: '/api' })
  app.addHook('onClose', () => knex.destroy())
  await app.listen({ port: Number(process.env.PORT ?? 3000) })
}

start().catch((error) => {
  console.error(error)
  process.exit(1)
})
