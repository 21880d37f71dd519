// Every function has one caller: the script's top level calls outer, outer calls middle, middle
// calls leaf. jit_unwind_e2e_test runs it under `node --always-sparkplug`, so the top level runs
// as baseline code whose frame V8's out-of-line prologue builds. Argument: seconds of CPU time to
// run (node's, all its threads), so a sampler takes as many samples on any machine.
function leaf(n) { let s = 0; for (let i = 0; i < n; ++i) s = (s + i * 7) % 1000003; return s; }
function middle(n) { return leaf(n) + 1; }
function outer(n) { let t = 0; for (let k = 0; k < 20; ++k) t += middle(n); return t; }
function cpuSeconds() { const used = process.cpuUsage(); return (used.user + used.system) / 1e6; }
const end = Number(process.argv[2]);
let total = 0;
while (cpuSeconds() < end) total += outer(20000);
if (total === 0) throw new Error('no work');
