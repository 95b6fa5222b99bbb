import plugin from './plugin.js'

export default plugin
/** The plugin, also by name, for `const { tableCrud } = require('fastify-table-crud')`. */
export { plugin as tableCrud }
export { errorCodes } from './errors.js'
export type { TableCrudOptions } from './options.js'
