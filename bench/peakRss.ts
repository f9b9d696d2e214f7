/**
 * Preloaded into a child process (`node --require out/bench/peakRss.js …`) by the benches that
 * measure memory: prints the process's peak resident set size on stderr as it exits.
 */
process.on('exit', () => {
  process.stderr.write(`\npeak-rss-kb ${process.resourceUsage().maxRSS}\n`);
});
