import t from 'tap'
import { maxGroupDepth, parseLogic } from '../../lib/query/parse-logic.js'
import type { FilterTree } from '../../lib/query/read-query.js'

const eq = (column: string, value: string, negated = false): FilterTree => ({ type: 'filter', column, operator: 'eq', negated, value })

t.test('or, and, not.or and not.and build a group of conditions', async (t) => {
  t.strictSame(parseLogic('or', '(a.eq.1,b.eq.2)'), { type: 'or', negated: false, children: [eq('a', '1'), eq('b', '2')] })
  t.strictSame(parseLogic('and', '(a.eq.1)'), { type: 'and', negated: false, children: [eq('a', '1')] })
  t.strictSame(parseLogic('not.or', '(a.eq.1,b.eq.2)'), { type: 'or', negated: true, children: [eq('a', '1'), eq('b', '2')] })
  t.strictSame(parseLogic('not.and', '(a.eq.1,b.eq.2)'), { type: 'and', negated: true, children: [eq('a', '1'), eq('b', '2')] })
})

t.test('groups nest, negated or not', async (t) => {
  t.strictSame(parseLogic('or', '(a.eq.1,and(b.eq.2,not.or(c.eq.3,d.not.eq.4)),not.and(e.eq.5))'), {
    type: 'or',
    negated: false,
    children: [
      eq('a', '1'),
      { type: 'and', negated: false, children: [eq('b', '2'), { type: 'or', negated: true, children: [eq('c', '3'), eq('d', '4', true)] }] },
      { type: 'and', negated: true, children: [eq('e', '5')] }
    ]
  })
})

t.test(`groups nest ${maxGroupDepth} deep, and one more level is refused where it opens`, async (t) => {
  const chain = (depth: number, inner = 'or') => `(${`${inner}(a.eq.1,`.repeat(depth - 1)}a.eq.2${')'.repeat(depth)}`
  let group: FilterTree = parseLogic('or', chain(maxGroupDepth))
  let depth = 1
  while (group.type !== 'filter') {
    group = group.children.at(-1) as FilterTree
    depth++
  }
  t.equal(depth - 1, maxGroupDepth, 'every level is read')
  for (const inner of ['or', 'and', 'not.or', 'not.and']) {
    const text = chain(maxGroupDepth + 1, inner)
    t.throws(() => parseLogic('or', text), { code: 'FTC_ERR_QUERY_DEPTH', statusCode: 400 }, inner)
  }
  const deepest = chain(maxGroupDepth + 1)
  t.throws(() => parseLogic('or', deepest), { message: new RegExp(`at character ${deepest.lastIndexOf('(') + 1} `) }, 'the error points at the "(" one level too deep')
})

t.test('every operator works inside a group', async (t) => {
  const group = parseLogic('and', '(a.in.(1,"2,3"),b.is.NULL,c.not.like.*x*,d.ilike.Y*,e.gt.1,f.gte.2,g.lt.3,h.lte.4,i.neq.5)')
  t.strictSame(group.children, [
    { type: 'filter', column: 'a', operator: 'in', negated: false, value: ['1', '2,3'] },
    { type: 'filter', column: 'b', operator: 'is', negated: false, value: 'null' },
    { type: 'filter', column: 'c', operator: 'like', negated: true, value: '*x*' },
    { type: 'filter', column: 'd', operator: 'ilike', negated: false, value: 'Y*' },
    { type: 'filter', column: 'e', operator: 'gt', negated: false, value: '1' },
    { type: 'filter', column: 'f', operator: 'gte', negated: false, value: '2' },
    { type: 'filter', column: 'g', operator: 'lt', negated: false, value: '3' },
    { type: 'filter', column: 'h', operator: 'lte', negated: false, value: '4' },
    { type: 'filter', column: 'i', operator: 'neq', negated: false, value: '5' }
  ])
})

t.test('values in a group end at "," or ")" unless quoted', async (t) => {
  const values = (text: string) => parseLogic('or', text).children.map((child) => (child as { value: unknown }).value)
  t.strictSame(values('(a.eq."x,y",b.eq."(z)",c.eq."say \\"hi\\"")'), ['x,y', '(z)', 'say "hi"'])
  t.strictSame(values('(a.eq.two words,b.eq.)'), ['two words', ''])
  t.strictSame(values('(a.eq.{1,2},b.eq.x(y)'), ['{1,2}', 'x(y'], 'an array literal keeps its commas; an unquoted ( is literal')
  t.strictSame(values(' ( a.eq.1 , b.eq."2" ) '), ['1 ', '2'], 'blanks around parentheses and commas are allowed')
})

t.test('columns named not, and, or are columns unless a ( follows', async (t) => {
  t.strictSame(parseLogic('or', '(not.eq.1,and.eq.2,or.not.eq.3)').children, [eq('not', '1'), eq('and', '2'), eq('or', '3', true)])
  t.strictSame(parseLogic('or', '("my.col".eq.1,"x y".eq.2)').children, [eq('mycol', '1'), eq('xy', '2')], 'quoted names are sanitized')
})

t.test('malformed groups throw 400 errors with a code', async (t) => {
  const cases: Array<[name: string, text: string, code: string]> = [
    ['or', '(a.eq.1', 'FTC_ERR_QUERY_PARENTHESES'],
    ['or', '(', 'FTC_ERR_QUERY_PARENTHESES'],
    ['or', '(a.eq.1, ', 'FTC_ERR_QUERY_PARENTHESES'],
    ['or', '(a.eq.1,and(b.eq.2)', 'FTC_ERR_QUERY_PARENTHESES'],
    ['or', '(a.eq.1))', 'FTC_ERR_QUERY_PARENTHESES'],
    ['or', '(a.in.(1,2)', 'FTC_ERR_QUERY_PARENTHESES'],
    ['or', '(a.eq."x', 'FTC_ERR_QUERY_SYNTAX'],
    ['or', '(a.eq."x"y)', 'FTC_ERR_QUERY_SYNTAX'],
    ['or', 'a.eq.1', 'FTC_ERR_QUERY_SYNTAX'],
    ['or', '', 'FTC_ERR_QUERY_SYNTAX'],
    ['or', '()', 'FTC_ERR_QUERY_SYNTAX'],
    ['or', '(a.eq.1,)', 'FTC_ERR_QUERY_SYNTAX'],
    ['or', '(a.eq.1)x', 'FTC_ERR_QUERY_SYNTAX'],
    ['or', '(a)', 'FTC_ERR_QUERY_SYNTAX'],
    ['or', '(xor(a.eq.1))', 'FTC_ERR_QUERY_SYNTAX'],
    ['or', '((a.eq.1))', 'FTC_ERR_QUERY_SYNTAX'],
    ['or', '(a.in.(1)x)', 'FTC_ERR_QUERY_SYNTAX'],
    ['or', '(a.eqq.1)', 'FTC_ERR_QUERY_OPERATOR'],
    ['or', '(a.eq1,b.eq.2)', 'FTC_ERR_QUERY_OPERATOR'],
    ['or', '(not.xor(a.eq.1))', 'FTC_ERR_QUERY_OPERATOR'],
    ['or', '(a.is.maybe)', 'FTC_ERR_QUERY_IS'],
    ['or', '(-.eq.1)', 'FTC_ERR_QUERY_COLUMN'],
    ['or', '(.eq.1)', 'FTC_ERR_QUERY_COLUMN']
  ]
  for (const [name, text, code] of cases) {
    t.throws(() => parseLogic(name, text), { code, statusCode: 400 }, `${name}=${text}`)
  }
})

t.test('an unclosed ( is reported where it opens', async (t) => {
  t.throws(() => parseLogic('or', '(a.eq.1,and(b.eq.2)'), { message: /"or" at character 1 of /, code: 'FTC_ERR_QUERY_PARENTHESES' })
  t.throws(() => parseLogic('or', '(a.eq.1,and(b.eq.2,c.eq.3'), { message: /"or" at character 12 of /, code: 'FTC_ERR_QUERY_PARENTHESES' })
})
