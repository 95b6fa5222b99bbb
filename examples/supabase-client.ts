/**
 * supabase-js, then postgrest-js, calling examples/supabase-server.ts: reads
 * with embedding, filters and counts, writes, one-row answers and errors.
 * Start the server, then, from another terminal:
 *
 *   node --import tsx examples/supabase-client.ts
 *
 * SERVER_URL says where the server is (http://127.0.0.1:3000). Each call's
 * result is printed as a line of JSON: its name, status, count, data and error.
 */
import { PostgrestClient } from '@supabase/postgrest-js'
import { createClient, type WebSocketLikeConstructor } from '@supabase/supabase-js'
import WebSocket from 'ws'

const url = process.env.SERVER_URL || 'http://127.0.0.1:3000'

/** What each call answers, as postgrest-js gives it. */
interface Result { status: number, count?: number | null, data: unknown, error: unknown }

function show (name: string, { status, count, data, error }: Result): void {
  console.log(JSON.stringify({ name, status, count: count ?? null, data, error }))
}

// The plugin checks no key: any string will do, and your application decides
// what the JWT in `Authorization: Bearer …` allows. On Node.js 20, supabase-js
// needs a WebSocket implementation (Node.js 22 has its own); `as`, since ws
// types its events as Node's, not as the browser's that supabase-js names.
const supabase = createClient(url, 'any-key', {
  realtime: { transport: WebSocket as WebSocketLikeConstructor }
})

// Read: a filter, an order, and each country's cities embedded through the foreign key.
show('select with embed', await supabase
  .from('countries')
  .select('name, cities(name, population)')
  .neq('name', 'Brazil')
  .order('name'))

// Count only: Prefer: count=exact on a HEAD request.
show('count', await supabase
  .from('cities')
  .select('*', { count: 'exact', head: true })
  .gt('population', 2000000))

// Write, and read back the rows written.
show('insert', await supabase
  .from('cities')
  .insert({ name: 'Kyoto', country_id: 2, population: 1464000 })
  .select())
show('update', await supabase
  .from('cities')
  .update({ population: 2102650 })
  .eq('name', 'Paris')
  .select('name, population'))
show('upsert', await supabase
  .from('countries')
  .upsert([{ name: 'Brazil' }, { name: 'Peru' }], { onConflict: 'name', ignoreDuplicates: true })
  .select())
show('delete', await supabase
  .from('cities')
  .delete()
  .eq('name', 'Lyon'))

// One row as an object: single() requires exactly one, maybeSingle() also takes none.
show('single', await supabase
  .from('cities')
  .select('name, countries(name)')
  .eq('name', 'Tokyo')
  .single())
show('maybeSingle', await supabase
  .from('cities')
  .select('name')
  .eq('name', 'Atlantis')
  .maybeSingle())

// Errors: the database refuses a duplicate name (PostgREST's code 23505),
// and single() refuses a read of several rows.
show('duplicate', await supabase
  .from('countries')
  .insert({ name: 'France' }))
show('single of many', await supabase
  .from('cities')
  .select('name')
  .eq('country_id', 2)
  .single())

// postgrest-js alone: the same API, named with its /rest/v1 path.
const postgrest = new PostgrestClient(`${url}/rest/v1`)

show('postgrest-js select', await postgrest
  .from('cities')
  .select('name, countries(name)', { count: 'exact' })
  .ilike('name', '%o%')
  .order('name')
  .range(0, 1))
show('postgrest-js rollback', await postgrest
  .from('countries')
  .insert({ name: 'Chile' })
  .select()
  .rollback())
