// Preloaded into server-everything by compare-everything.sh
// (node --import loopback.mjs): makes it a well-behaved background server of
// the peer scripts (background.sh) without changing the server itself.
//
// - A server that listens without naming a host (express's app.listen(PORT))
//   listens on 127.0.0.1 only, never on every interface.
// - Once it listens it prints {"url":"http://127.0.0.1:PORT"} on stdout, the
//   line start_background waits for (PORT=0 picks a free port).
// - It exits when its stdin ends, the first step of stop_background.
import net from 'node:net';

const loopback = '127.0.0.1';
const listen = net.Server.prototype.listen;
let announced = false;

net.Server.prototype.listen = function (...args) {
  const [first] = args;
  if (typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first))) {
    if (typeof args[1] !== 'string') args.splice(1, 0, loopback);
  } else if (first && typeof first === 'object' && first.path === undefined && first.host === undefined) {
    args[0] = { ...first, host: loopback };
  }
  this.once('listening', () => {
    const address = this.address();
    if (!announced && address && typeof address === 'object') {
      announced = true;
      process.stdout.write(JSON.stringify({ url: `http://${loopback}:${address.port}` }) + '\n');
    }
  });
  return listen.apply(this, args);
};

process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
