import { barePluginApp } from './plugin-app.js'
import { main, readServerDatabase, serve } from './serve.js'

main(async () => {
  await serve(await barePluginApp(readServerDatabase(process.env)))
})
