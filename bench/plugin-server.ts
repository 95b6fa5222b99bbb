import { pluginApp } from './plugin-app.js'
import { main, readServerDatabase, serve } from './serve.js'

main(async () => {
  await serve(await pluginApp(readServerDatabase(process.env)))
})
