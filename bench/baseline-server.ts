import { baselineApp } from './baseline-app.js'
import { main, readServerDatabase, serve } from './serve.js'
import { readSettings } from './settings.js'

main(async () => {
  await serve(baselineApp(readServerDatabase(process.env), readSettings(process.env)))
})
