// An async function whose work runs after its first await: V8's baseline code of `work` (under
// --always-sparkplug) reaches that code only through the generator's table of resume points, and
// leaves through a builtin that tears its frame down. jit_unwind_e2e_test walks each sample in
// leaf through `work` to the thread's entry. Argument: seconds of CPU time to run (node's, all
// its threads), so a sampler takes as many samples on any machine.
function leaf(i) {
  let x = i;
  for (let k = 0; k < 20000; k++) x = (x * 31 + k) | 0;
  return x;
}
function cpuSeconds() { const used = process.cpuUsage(); return (used.user + used.system) / 1e6; }
async function work(seconds) {
  await null;
  let sum = 0;
  for (let i = 0; cpuSeconds() < seconds; i++) sum = (sum + leaf(i)) | 0;
  return sum;
}
work(Number(process.argv[2])).then((sum) => { if (sum === 0.5) throw new Error('no work'); });
