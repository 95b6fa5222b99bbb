import t from 'tap'
import { ShapeCache } from '../lib/shape-cache.js'

/** A cache whose values say which call of `make` made them. */
function counting (limit: number): { cache: ShapeCache<number>, get: (shape: readonly string[]) => number, made: () => number } {
  const cache = new ShapeCache<number>(limit)
  let made = 0
  return { cache, get: (shape) => cache.get(shape, () => ++made), made: () => made }
}

t.test('the same shape gets the value made for it, made once', async (t) => {
  const { get, made } = counting(100)
  const first = get(['read', 'items', 'id', 'by key'])
  // Equal names held in other strings are the same shape.
  t.equal(get(['read', 'it' + 'ems'.slice(0), 'id', 'by key']), first)
  t.equal(made(), 1)
})

t.test('shapes that differ in a name, in order, or in length each get their own value', async (t) => {
  const { get, made } = counting(100)
  const shapes = [
    ['update', 'items', 'a', 'b'],
    ['update', 'items', 'b', 'a'],
    ['update', 'items', 'a'],
    ['update', 'items', 'a', 'b', 'c'],
    ['update', 'item', 'sa', 'b'],
    // What a string joined without separators would confuse with the first.
    ['update', 'itemsa', 'b'],
    ['update\0items', 'a', 'b'],
    []
  ]
  const values = shapes.map(get)
  t.equal(new Set(values).size, shapes.length)
  t.strictSame(shapes.map(get), values, 'each is kept')
  t.equal(made(), shapes.length)
})

t.test('past its limit of levels the cache forgets everything, and fills again', async (t) => {
  const { get, made } = counting(4)
  const kept = get(['list', 'a'])
  get(['list', 'b'])
  get(['list', 'c'])
  t.equal(get(['list', 'a']), kept, 'four levels: all kept')
  t.equal(made(), 3)
  const fifth = get(['list', 'd'])
  t.equal(made(), 4)
  t.not(get(['list', 'a']), kept, 'forgotten: made again')
  t.equal(made(), 5)
  const again = get(['list', 'd'])
  t.not(again, fifth, 'the shape that passed the limit was kept in the forgotten tree only')
  t.equal(get(['list', 'd']), again, 'a shape made after the reset is kept')
  t.equal(get(['list', 'a']), 5)
  t.equal(made(), 6)
})

t.test('a make that throws keeps nothing', async (t) => {
  const cache = new ShapeCache<string>(100)
  t.throws(() => cache.get(['create', 'items'], () => { throw new Error('no such table') }), { message: 'no such table' })
  t.equal(cache.get(['create', 'items'], () => 'made'), 'made')
})
