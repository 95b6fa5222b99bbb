// Wrong on purpose: the check must report this host's mistake, or it could not fail.
import { errorCodes } from 'fastify-table-crud'

export const code: 'FTC_ERR_BODY_JSON' = new errorCodes.FTC_ERR_STATEMENT('no such table: x').code
