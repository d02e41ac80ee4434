// The HTTP server of the fetch-wrapper benchmark (bench.mjs): a separate
// process, so the client's CPU time counts the client alone. It listens on
// 127.0.0.1 on an ephemeral port, prints the port on stdout, and answers
// every request 200 with a short body and the headers a typical API sends.
import http from 'node:http';

const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, {
      'content-type': 'application/json',
      'cache-control': 'no-store',
      'x-request-id': 'bench',
    });
    res.end('{"ok":true}');
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${server.address().port}\n`);
});
// Ends with its parent: stdin closes when the benchmark exits.
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
