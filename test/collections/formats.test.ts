import { fullFormats } from 'ajv-formats/dist/formats.js'
import { describe, expect, it } from 'vitest'
import { URL_PATTERN } from '../../src/collections/formats.js'
import { compileLinearPattern } from '../../src/collections/linear-regexp.js'

const native = fullFormats.url as RegExp
const linear = compileLinearPattern(URL_PATTERN)

function expectSameAnswers (texts: Iterable<string>) {
  let compared = 0
  for (const text of texts) {
    expect([text, linear.test(text)]).toEqual([text, native.test(text)])
    compared++
  }
  return compared
}

/** Octets as a URL may spell them: every number to 299, and leading zeros. */
const OCTETS = [...Array.from({ length: 300 }, (_, value) => String(value)), '00', '01', '010', '016', '0127', '0168', '0254']

describe('the url format on the linear-time engine', () => {
  it('answers as ajv-formats does for every first octet of an IPv4 host, and every second one after those of private ranges', () => {
    function * hosts () {
      const pairs = [
        ...OCTETS.flatMap((first) => ['1', '168', '254', '16', '31'].map((second) => [first, second])),
        ...['10', '127', '169', '172', '192', '1', '223'].flatMap((first) => OCTETS.map((second) => [first, second]))
      ]
      for (const [first, second] of pairs) {
        yield `http://${first}.${second}.3.4`
        yield `ftp://user:pass@${first}.${second}.0.1:8080/path?q`
      }
    }
    expect(expectSameAnswers(hosts())).toBe(2 * 12 * OCTETS.length)
  })

  it('answers as ajv-formats does for the URLs of its test suite and their near misses', () => {
    const samples = [
      'http://foo.com/blah_blah', 'http://foo.com/blah_blah_(wikipedia)', 'http://www.example.com/wpstyle/?p=364',
      'https://www.example.com/foo/?bar=baz&inga=42&quux', 'http://✪df.ws/123', 'http://userid:password@example.com:8080',
      'http://userid@example.com:8080/', 'http://142.42.1.1/', 'http://142.42.1.1:8080/', 'http://➡.ws/䨹',
      'http://⌘.ws/', 'http://foo.com/blah_(wikipedia)#cite-1', 'http://foo.com/unicode_(✪)_in_parens',
      'http://☺.damowmow.com/', 'http://code.google.com/events/#&product=browser', 'http://j.mp', 'ftp://foo.bar/baz',
      'http://foo.bar/?q=Test%20URL-encoded%20stuff', 'http://مثال.إختبار', 'http://例子.测试', 'http://-.~_!$&\'()*+,;=:%40:80%2f::::::@e.com',
      'http://1337.net', 'http://a.b-c.de', 'http://223.255.255.254', 'HTTP://EXAMPLE.COM/', 'http://ſK.com',
      'http://', 'http://.', 'http://..', 'http://../', 'http://?', 'http://??/', 'http://#', 'http://##/',
      'http://foo.bar?q=Spaces should be encoded', '//', '//a', '///a', 'foo.com', 'rdar://1234', 'h://test',
      'http:// shouldfail.com', ':// should fail', 'http://foo.bar/foo(bar)baz quux', 'ftps://foo.bar/', 'http://-error-.invalid/',
      'http://a.b--c.de/', 'http://-a.b.co', 'http://a.b-.co', 'http://0.0.0.0', 'http://10.1.1.0', 'http://10.1.1.255',
      'http://224.1.1.1', 'http://1.1.1.1.1', 'http://123.123.123', 'http://3628126748', 'http://.www.foo.bar/',
      'http://www.foo.bar./', 'http://.www.foo.bar./', 'http://10.1.1.1', 'http://10.1.1.254', 'http://a@b@10.0.0.1',
      'http://a@b@8.8.8.8', 'http://169.254.1.1', 'http://192.168.0.1', 'http://172.16.0.1', 'http://172.32.0.1'
    ]
    expectSameAnswers(samples)
    expect(linear.test('http://a@b@8.8.8.8')).toBe(true)
    expect(linear.test('http://192.168.0.1')).toBe(false)
  })
})
