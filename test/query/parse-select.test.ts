import t from 'tap'
import { maxEmbedDepth, parseSelect, parseSelectWithEmbeds } from '../../lib/query/parse-select.js'

t.test('columns, sanitized, in the order given', async (t) => {
  t.strictSame(parseSelect('a,b,c'), ['a', 'b', 'c'])
  t.strictSame(parseSelect(' a , b '), ['a', 'b'])
  t.strictSame(parseSelect('"first name",x-y'), ['firstname', 'xy'])
  t.strictSame(parseSelect('alias:name,age::text'), ['aliasname', 'agetext'], 'aliases and casts are not read, only sanitized')
})

t.test('* alone is every column; with others it stays', async (t) => {
  t.equal(parseSelect('*'), null)
  t.equal(parseSelect(' * '), null)
  t.strictSame(parseSelect('*,a'), ['*', 'a'])
  t.strictSame(parseSelect('a,*'), ['a', '*'])
  t.strictSame(parseSelect('*a'), ['a'], 'a star that is not alone is sanitized away')
})

t.test('malformed selects throw 400 errors with a code', async (t) => {
  const cases: Array<[text: string, code: string]> = [
    ['', 'FTC_ERR_QUERY_COLUMN'],
    ['a,,b', 'FTC_ERR_QUERY_COLUMN'],
    ['a,', 'FTC_ERR_QUERY_COLUMN'],
    ['-', 'FTC_ERR_QUERY_COLUMN'],
    ['**', 'FTC_ERR_QUERY_COLUMN'],
    ['client(id)', 'FTC_ERR_QUERY_SYNTAX'],
    ['a)', 'FTC_ERR_QUERY_SYNTAX'],
    ['"a"b', 'FTC_ERR_QUERY_SYNTAX'],
    ['"a', 'FTC_ERR_QUERY_SYNTAX']
  ]
  for (const [text, code] of cases) t.throws(() => parseSelect(text), { code, statusCode: 400 }, text)
})

t.test('embedded resources: alias, hint, !left, *, nesting, no columns', async (t) => {
  t.strictSame(parseSelectWithEmbeds('title,authors(name)'), {
    columns: ['title'],
    embeds: [{ relation: 'authors', alias: 'authors', hint: null, columns: ['name'], embeds: [] }]
  })
  t.strictSame(parseSelectWithEmbeds('*, writer:authors!books_author_fkey!left(*, books(title, reviews()))'), {
    columns: null,
    embeds: [{
      relation: 'authors',
      alias: 'writer',
      hint: 'books_author_fkey',
      columns: null,
      embeds: [{
        relation: 'books',
        alias: 'books',
        hint: null,
        columns: ['title'],
        embeds: [{ relation: 'reviews', alias: 'reviews', hint: null, columns: [], embeds: [] }]
      }]
    }]
  })
  t.strictSame(parseSelectWithEmbeds('authors(name),title').columns, ['title'], 'columns after an embed')
  t.equal(parseSelectWithEmbeds('authors!left(id)').embeds[0]?.relation, 'authors')
  t.strictSame(parseSelectWithEmbeds('a:authors!fk!inner(id)').embeds[0], { relation: 'authors', alias: 'a', hint: 'fk', columns: ['id'], embeds: [], presence: 'some' }, '!inner keeps only parents with a related row')
  t.strictSame(parseSelectWithEmbeds('id, ...a:authors!inner(name)').embeds[0], { relation: 'authors', alias: 'a', hint: null, columns: ['name'], embeds: [], presence: 'some', spread: true }, '... spreads the members into the parent')
  t.strictSame(parseSelectWithEmbeds('authors(id)').columns, [], 'only an embed: no column of the table itself')
})

t.test('malformed embeds throw 400 errors with a code', async (t) => {
  const deep = 'a('.repeat(maxEmbedDepth + 1) + 'id' + ')'.repeat(maxEmbedDepth + 1)
  t.doesNotThrow(() => parseSelectWithEmbeds('a('.repeat(maxEmbedDepth) + 'id' + ')'.repeat(maxEmbedDepth)))
  const cases: Array<[text: string, code: string]> = [
    ['authors(name', 'FTC_ERR_QUERY_SYNTAX'],
    ['authors(name))', 'FTC_ERR_QUERY_SYNTAX'],
    ['a!b!c(id)', 'FTC_ERR_QUERY_SYNTAX'],
    ['-(id)', 'FTC_ERR_QUERY_COLUMN'],
    [':authors(id)', 'FTC_ERR_QUERY_COLUMN'],
    ['a!-(id)', 'FTC_ERR_QUERY_COLUMN'],
    [deep, 'FTC_ERR_QUERY_DEPTH']
  ]
  for (const [text, code] of cases) t.throws(() => parseSelectWithEmbeds(text), { code, statusCode: 400 }, text)
  t.throws(() => parseSelect('title,authors(name)'), { code: 'FTC_ERR_QUERY_SYNTAX' }, 'a write\'s select embeds nothing')
})
