# Per-round ratios of the root benchmarks (bench/root.sh): the median over
# rounds, with the smallest and largest. Each round has one line per
# benchmark and -cpu value, in order.
/^Benchmark/ {
  name=$1; ns=$3
  if (name in seen) { round[name]++ } else { seen[name]=1; round[name]=1 }
  v[name, round[name]] = ns
  if (round[name] > R) R = round[name]
}
function med(a, n,   i, j, t) { for (i=1;i<=n;i++) for (j=i+1;j<=n;j++) if (a[j]<a[i]) {t=a[i];a[i]=a[j];a[j]=t}; return (n%2)? a[(n+1)/2] : (a[n/2]+a[n/2+1])/2 }
function ratio(label, num, den,   r, n, a, lo, hi) {
  n=0; lo=1e18; hi=0
  for (r=1;r<=R;r++) if (((num,r) in v) && ((den,r) in v)) { a[++n]=v[num,r]/v[den,r]; if (a[n]<lo) lo=a[n]; if (a[n]>hi) hi=a[n] }
  if (n == 0) return
  printf "%-52s median %8.4f  min %8.4f  max %8.4f  (n=%d)\n", label, med(a,n), lo, hi, n
}
END {
  for (s = 0; s < 2; s++) {
    sfx = s ? "-2" : ""
    ratio("Execute/Floor" sfx, "BenchmarkExecute" sfx, "BenchmarkFloor" sfx)
    ratio("Execute cancelable/Background" sfx, "BenchmarkExecute" sfx, "BenchmarkExecuteBackground" sfx)
    ratio("ExecuteIsolated/Execute" sfx, "BenchmarkExecuteIsolated" sfx, "BenchmarkExecute" sfx)
    ratio("ExecuteLayers (three)/Execute" sfx, "BenchmarkExecuteLayers" sfx, "BenchmarkExecute" sfx)
    ratio("ExecuteJSON/UnmarshalFloor" sfx, "BenchmarkExecuteJSON" sfx, "BenchmarkUnmarshalFloor" sfx)
    ratio("ExecuteStrict/Execute" sfx, "BenchmarkExecuteStrict" sfx, "BenchmarkExecute" sfx)
    ratio("DefinitionsCached/FromScratch" sfx, "BenchmarkDefinitionsCached" sfx, "BenchmarkDefinitionsFromScratch" sfx)
    ratio("DefinitionsLayersCached/LayersFromScratch" sfx, "BenchmarkDefinitionsLayersCached" sfx, "BenchmarkDefinitionsLayersFromScratch" sfx)
    ratio("BatchEight (8 x 10ms, parallelism 8)/BatchOne" sfx, "BenchmarkBatchEight" sfx, "BenchmarkBatchOne" sfx)
  }
  ratio("LookupParallel cpu2/cpu1", "BenchmarkLookupParallel-2", "BenchmarkLookupParallel")
  ratio("ExecuteParallel cpu2/cpu1", "BenchmarkExecuteParallel-2", "BenchmarkExecuteParallel")
}
