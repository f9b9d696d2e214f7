import * as esbuild from 'esbuild';
const entry = process.argv[2];
const r = await esbuild.build({ entryPoints:[entry], bundle:true, platform:'node', target:'node20', format:'cjs', write:false, metafile:true, minify:true, outfile:'/tmp/perf/x.js', mainFields:['module','main'], external:['vscode','./deferred.js','typescript'], logLevel:'error', define:{navigator:'undefined','globalThis.navigator':'undefined'} });
const out = Object.values(r.metafile.outputs)[0];
const pk = {}; for (const [f, v] of Object.entries(out.inputs)) { const m = f.match(/node_modules\/((@[^/]+\/)?[^/]+)/); const k = m ? m[1] : f.startsWith('src/') ? f.split('/').slice(0,3).join('/') : f; pk[k] = (pk[k]||0)+v.bytesInOutput; }
console.log('total', out.bytes); for (const [k,v] of Object.entries(pk).sort((a,b)=>b[1]-a[1]).slice(0,25)) console.log(String(v).padStart(9), k);
if (process.argv[3]) { const why = {}; for (const [f,v] of Object.entries(r.metafile.inputs)) for (const i of v.imports) if (i.path.includes(process.argv[3]) && !f.includes('node_modules')) why[f]=1; console.log(Object.keys(why)); }
