// A small CPU-bound Node.js program with one hot function, for `jitscope record -- node
// --perf-prof examples/node/hotspot.js`: V8's --perf-prof writes a jitdump of the code it
// compiles (jit-<pid>.dump, in the working directory), which names `series` in the report.
function series(n) {
  let sum = 0;
  for (let i = 1; i <= n; ++i) sum += (i % 7) / i;
  return sum;
}

let total = 0;
for (let round = 0; round < 1000; ++round) total += series(100000);
console.log(total.toFixed(3));
