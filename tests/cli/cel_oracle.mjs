// Generates CEL device selectors and devices from a seed and evaluates
// them with @marcbachmann/cel-js, the maintained implementation the C
// interpreter is checked against. One line per case:
// EXPR <TAB> DEVICE-JSON <TAB> true|false|error.
// Only the part of CEL on which cel-js and cel-go agree is generated:
// operands of one type per operator (cel-go's checker would refuse
// mixed ones), list literals of literals only (cel-js wants their
// elements of one static type), no has() over an index (cel-js refuses
// it).
// Usage: node cel_oracle.mjs MODULE-DIR SEED COUNT
const [dir, seedArg, countArg] = process.argv.slice(2)
const {evaluate} = await import(`${dir}/node_modules/@marcbachmann/cel-js/lib/index.js`)

let seed = BigInt(seedArg) || 1n
function rnd(n) {   // xorshift64*, deterministic across runs
  seed ^= seed >> 12n; seed ^= (seed << 25n) & 0xffffffffffffffffn; seed ^= seed >> 27n
  return Number(((seed * 2685821657736338717n) & 0xffffffffffffffffn) >> 33n) % n
}
const pick = (a) => a[rnd(a.length)]
const DOMAIN = 'gpu.example.com'
const STRINGS = ['A100', 'H100', 'a100', 'gpu', '', 'nvidia', 'A1', '00']
const INTS = ['0', '1', '2', '-3', '7', '40', '9223372036854775807', '-9223372036854775808']

function device() {
  const attrs = {}
  for (const id of ['model', 'vendor']) if (rnd(4)) attrs[id] = {string: pick(STRINGS)}
  for (const id of ['cores', 'index']) if (rnd(4)) attrs[id] = {int: Number(pick(['0', '1', '7', '40', '-3', '6912']))}
  for (const id of ['mig']) if (rnd(4)) attrs[id] = {bool: !!rnd(2)}
  return {driver: pick([DOMAIN, 'nic.example.com']), attributes: attrs}
}

// the device as cel-js sees it: ints as BigInt, one map per domain
function celDevice(d) {
  const m = {}
  for (const [id, v] of Object.entries(d.attributes))
    m[id] = 'int' in v ? BigInt(v.int) : 'bool' in v ? v.bool : v.string
  return {driver: d.driver, attributes: {[DOMAIN]: m}}
}

const attr = (id) => rnd(2) ? `device.attributes["${DOMAIN}"].${id}` : `device.attributes["${DOMAIN}"]["${id}"]`
const str = (s) => JSON.stringify(s)

function intExpr(depth) {
  if (depth <= 0 || rnd(3) === 0) return rnd(2) ? pick(INTS) : attr(pick(['cores', 'index']))
  switch (rnd(4)) {
    case 0: return `(${intExpr(depth - 1)} ${pick(['+', '-', '*', '/', '%'])} ${intExpr(depth - 1)})`
    case 1: return `size(${strExpr(depth - 1)})`
    case 2: return `(${boolExpr(depth - 1)} ? ${intExpr(depth - 1)} : ${intExpr(depth - 1)})`
    // cel-js negates -9223372036854775808 without cel-go's overflow error:
    // negate only what cannot be it
    default: return `-(${rnd(2) ? pick(['0', '1', '7', '-3']) : attr(pick(['cores', 'index']))})`
  }
}
function strExpr(depth) {
  if (depth <= 0 || rnd(3) === 0) return rnd(2) ? str(pick(STRINGS)) : rnd(3) ? attr(pick(['model', 'vendor'])) : 'device.driver'
  return `(${strExpr(depth - 1)} + ${strExpr(depth - 1)})`
}
function boolExpr(depth) {
  if (depth <= 0) return rnd(3) ? pick(['true', 'false']) : attr('mig')
  switch (rnd(9)) {
    case 0: return `${intExpr(depth - 1)} ${pick(['<', '<=', '>', '>=', '==', '!='])} ${intExpr(depth - 1)}`
    case 1: return `${strExpr(depth - 1)} ${pick(['==', '!=', '<', '>'])} ${strExpr(depth - 1)}`
    case 2: return `${strExpr(depth - 1)}.${pick(['startsWith', 'endsWith', 'contains'])}(${strExpr(depth - 1)})`
    case 3: return `(${boolExpr(depth - 1)} ${pick(['&&', '||'])} ${boolExpr(depth - 1)})`
    case 4: return `!(${boolExpr(depth - 1)})`
    case 5: return `${intExpr(depth - 1)} in [${[0, 1, 2].slice(0, rnd(3) + 1).map(() => pick(INTS)).join(', ')}]`
    case 6: return `${strExpr(depth - 1)} in [${[0, 1].map(() => str(pick(STRINGS))).join(', ')}]`
    case 7: return `"${pick(['model', 'cores', 'serial'])}" in device.attributes["${DOMAIN}"]`
    default: return `(${boolExpr(depth - 1)} ? ${boolExpr(depth - 1)} : ${boolExpr(depth - 1)})`
  }
}

const out = []
for (let i = 0; i < Number(countArg); i++) {
  const d = device()
  const e = boolExpr(1 + rnd(4))
  let want
  try {
    const v = evaluate(e, {device: celDevice(d)})
    want = v === true ? 'true' : v === false ? 'false' : 'error'
  } catch {
    want = 'error'
  }
  out.push(`${e}\t${JSON.stringify(d)}\t${want}`)
}
process.stdout.write(out.join('\n') + '\n')
