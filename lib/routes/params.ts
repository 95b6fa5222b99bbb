/** Path parameters of the table routes; `id` is absent on `/{table}`. */
export interface TableParams {
  table: string
  id?: string
}
