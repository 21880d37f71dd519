// Functions of different shapes for v8_cfi_test.cc. Each is optimized by TurboFan on request
// (--allow-natives-syntax), so V8 writes its code, and with --perf-prof-unwinding-info the unwind
// tables it generated for that code, to the jitdump.
function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
function sumArray(values) {
  let total = 0;
  for (let i = 0; i < values.length; ++i) total += values[i] * 1.5;
  return total;
}
function makePoints(n) {
  const points = [];
  for (let i = 0; i < n; ++i) points.push({x: i, y: i * 2, label: 'p' + i});
  return points.length;
}
function guarded(n) {
  try {
    if (n % 7 === 0) throw new Error('seven');
    return n;
  } catch (e) {
    return e.message.length;
  }
}
function manyArguments(a, b, c, d, e, f, g, h) { return a + b + c + d + e + f + g + h; }
function callsWithMany(n) { return manyArguments(n, n + 1, n + 2, n + 3, n + 4, n + 5, n + 6, n + 7); }
function callsWithFewer(n) { return manyArguments(n, n) | 0; }
function callsWithMore(n) { return fib.call(null, n & 3, n, n, n); }
function classify(n) {
  switch (n & 7) {
    case 0: return 'zero';
    case 1: return 'one';
    case 2: return 'two';
    case 3: return 'three';
    case 4: return 'four';
    default: return 'many';
  }
}
function joined(n) {
  let s = '';
  for (let i = 0; i < n; ++i) s += classify(i);
  return s.length;
}
const values = Array.from({length: 100}, (_, i) => i);
const shapes = [
  [fib, 15], [sumArray, values], [makePoints, 50], [guarded, 14], [callsWithMany, 3],
  [callsWithFewer, 3], [callsWithMore, 9], [classify, 5], [joined, 20],
];
for (const [f, argument] of shapes) {
  %PrepareFunctionForOptimization(f);
  for (let i = 0; i < 3; ++i) f(argument);
  %OptimizeFunctionOnNextCall(f);
  f(argument);
}
