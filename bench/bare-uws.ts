/** The ceiling: a bare uWS "hello" JSON server, no auth, no database. */
import uWS from 'uWebSockets.js';

const body = JSON.stringify({ hello: 'world' });
uWS
  .App()
  .get('/*', (res) => {
    res.cork(() => {
      res.writeHeader('Content-Type', 'application/json');
      res.end(body);
    });
  })
  .listen('127.0.0.1', 0, (socket) => {
    if (!socket) process.exit(1);
    console.log(`bare uws listening on http://127.0.0.1:${uWS.us_socket_local_port(socket)}`);
  });
