// Run by `node --perf-prof` in tests/report/annotate_engines_e2e_test.cc: mixHot does nearly all
// the work, in the loop on the lines marked LOOP, so V8 optimizes it (TurboFan, "JS:*mixHot")
// and its optimized code takes most samples. The markers give the test its lines. It runs until
// node has used 0.8 s of CPU time, so a sampler takes as many samples on any machine.
function mixHot(n) {  // FIRST
  let s = 0;
  for (let i = 0; i < n; ++i) {  // LOOP
    s = (s * 31 + i) % 1000003;  // LOOP
  }
  return s;
}  // LAST

function cpuSeconds() {
  const used = process.cpuUsage();
  return (used.user + used.system) / 1e6;
}

let total = 0;
while (cpuSeconds() < 0.8) total = (total + mixHot(1000000)) % 1000003;
console.log(total);
