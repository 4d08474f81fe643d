// A JavaScript workload for perf record (perfdata-node.sh, perfdata-jitdump.sh):
// two JIT-compiled functions, busy for 1.5 s.
function fibJS(n) { return n < 2 ? n : fibJS(n - 1) + fibJS(n - 2); }
function hashLoop(k) { let h = 0; for (let i = 0; i < k; i++) h = (h * 31 + i) | 0; return h; }
const end = Date.now() + 1500;
let acc = 0;
while (Date.now() < end) acc += fibJS(22) + hashLoop(100000);
console.log(acc !== 0 ? "done" : "done");
