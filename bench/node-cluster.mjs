// Runs a Node server as most teams run Node on a machine of several cores: node:cluster with N
// workers sharing one listening port (what PM2's cluster mode does), each worker the server
// unchanged. bench/mail-triage-peer --peer-workers N runs the peer (../shared/peers/node-triage)
// through it; the primary hands the connections to the workers in turn.
//
// Usage: node node-cluster.mjs WORKERS SERVER.js   (in the server's directory, with its environment)
import cluster from 'node:cluster';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const workers = Number(process.argv[2]);
const entry = process.argv[3];
if (!Number.isInteger(workers) || workers < 1 || !entry) {
  console.error('usage: node node-cluster.mjs WORKERS SERVER.js');
  process.exit(2);
}

if (cluster.isPrimary) {
  let stopping = false;
  for (let i = 0; i < workers; i++) cluster.fork();
  // A worker that dies ends the run: a benchmark of fewer workers than asked would mislead.
  cluster.on('exit', (worker, code, signal) => {
    if (!stopping) {
      console.error(`worker ${worker.process.pid} ended (${signal || code})`);
      process.exit(1);
    }
  });
  process.on('SIGTERM', () => {
    stopping = true;
    for (const w of Object.values(cluster.workers)) w.kill();
    process.exit(0);
  });
} else {
  await import(pathToFileURL(path.resolve(entry)).href);
}
