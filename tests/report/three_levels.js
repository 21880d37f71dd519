// Every function has one caller: the script's top level calls outer, outer calls middle, middle
// calls leaf. jit_unwind_e2e_test runs it under `node --always-sparkplug`, so the top level runs
// as baseline code whose frame V8's out-of-line prologue builds. Argument: seconds to run.
function leaf(n) { let s = 0; for (let i = 0; i < n; ++i) s = (s + i * 7) % 1000003; return s; }
function middle(n) { return leaf(n) + 1; }
function outer(n) { let t = 0; for (let k = 0; k < 20; ++k) t += middle(n); return t; }
const end = Date.now() + Number(process.argv[2]) * 1000;
let total = 0;
while (Date.now() < end) total += outer(20000);
if (total === 0) throw new Error('no work');
